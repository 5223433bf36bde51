package wukongim_test

import (
	"testing"
	"time"

	"github.com/imbench/imbench/load/conformance"
	"github.com/imbench/imbench/load/engine"
	_ "github.com/imbench/imbench/load/wukongim"
	"github.com/imbench/imbench/targets/reference/reftest"
	"github.com/imbench/imbench/targets/reference/wukongim"
)

// The shared suite, against the reference target's WuKongIM front end, over
// TCP and over WebSocket, encrypted as the real server runs by default.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Harness{
		System:     "wukongim",
		Start:      startReference,
		ServerIdle: func(engine.Keepalive) time.Duration { return wukongim.DefaultReadTimeout },
		WrongCredentials: func(tgt engine.Target) engine.Target {
			tgt.Options = map[string]any{"secret": "wrong"}
			return tgt
		},
		Variants:   map[string]map[string]any{"tcp": {"transport": "tcp"}, "ws": {"transport": "ws"}},
		LoginDrops: true,
		LatePushes: true,
	})
}

type reference struct{ tg *reftest.WKTarget }

func (r reference) Target() engine.Target {
	return engine.Target{Name: "reference", System: "wukongim",
		Endpoints: map[string]string{"wukongim_api": r.tg.APIURL, "wukongim_tcp": r.tg.TCPAddr, "wukongim_ws": r.tg.WSURL},
		Options:   map[string]any{"secret": r.tg.Secret}}
}

func (r reference) Counter(t testing.TB, name string) float64 { return r.tg.Counter(t, name) }

func (r reference) DropAll() int { return r.tg.Core.DropAll() }

func (r reference) StallNextPulls(n int) { r.tg.Core.StallNextPulls(n) }

func startReference(t testing.TB, f conformance.Faults) conformance.Server {
	cf := reftest.Faults(f)
	cf.ReorderLate = f.ReorderLate
	tg := reftest.StartWuKongIMWith(t, cf, reftest.WKOptions{ReadTimeout: f.ReadTimeout, Gateways: f.Gateways})
	// The login-drop fault is the front end's; a cluster's gateways have
	// their own, which the suite does not drop logins on.
	if err := tg.Front.SetLoginDrops(wukongim.LoginDrops{Close: f.LoginDropClose, Silent: f.LoginDropSilent,
		Burst: f.LoginBurst, Window: f.LoginBurstWindow, Seed: f.Seed}); err != nil {
		t.Fatal(err)
	}
	reftest.RunDisconnects(t, tg.Core, f)
	return reference{tg}
}
