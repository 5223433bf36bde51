package wukongim_test

import (
	"testing"

	"github.com/imbench/imbench/load/conformance"
	"github.com/imbench/imbench/load/engine"
	_ "github.com/imbench/imbench/load/wukongim"
	"github.com/imbench/imbench/targets/reference/reftest"
)

// The shared suite, against the reference target's WuKongIM front end, over
// TCP and over WebSocket, encrypted as the real server runs by default.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Harness{
		System: "wukongim",
		Start:  startReference,
		WrongCredentials: func(tgt engine.Target) engine.Target {
			tgt.Options = map[string]any{"secret": "wrong"}
			return tgt
		},
		Variants: map[string]map[string]any{"tcp": {"transport": "tcp"}, "ws": {"transport": "ws"}},
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

func startReference(t testing.TB, f conformance.Faults) conformance.Server {
	tg := reftest.StartWuKongIMWith(t, reftest.Faults(f), reftest.WKOptions{ReadTimeout: f.ReadTimeout, Gateways: f.Gateways})
	reftest.RunDisconnects(t, tg.Core, f)
	return reference{tg}
}
