package wildfire_test

import (
	"testing"
	"time"

	"github.com/imbench/imbench/load/conformance"
	"github.com/imbench/imbench/load/engine"
	_ "github.com/imbench/imbench/load/wildfire"
	"github.com/imbench/imbench/targets/reference/reftest"
	wfref "github.com/imbench/imbench/targets/reference/wildfire"
)

// The shared suite, against the reference target's Wildfire front end.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Harness{
		System:     "wildfire",
		Start:      startReference,
		ServerIdle: func(k engine.Keepalive) time.Duration { return wfref.IdleTimeout(uint16(k.Every / time.Second)) },
		WrongCredentials: func(tgt engine.Target) engine.Target {
			tgt.Options = map[string]any{"secret": "wrong"}
			return tgt
		},
	})
}

type reference struct{ tg *reftest.WFTarget }

func (r reference) Target() engine.Target {
	return engine.Target{Name: "reference", System: "wildfire",
		Endpoints: map[string]string{"wildfire_admin": r.tg.AdminURL, "wildfire_mqtt": r.tg.MQTTAddr},
		Options:   map[string]any{"secret": r.tg.Secret}}
}

func (r reference) Counter(t testing.TB, name string) float64 { return r.tg.Counter(t, name) }

func (r reference) DropAll() int { return r.tg.Core.DropAll() }

func (r reference) StallNextPulls(n int) { r.tg.Core.StallNextPulls(n) }

func startReference(t testing.TB, f conformance.Faults) conformance.Server {
	if f.Gateways > 0 {
		t.Skip("the reference target keeps Wildfire's per-user feeds beside its core: no gateway processes")
	}
	tg := reftest.StartWildfire(t, reftest.Faults(f), reftest.WFOptions{ReadTimeout: f.ReadTimeout})
	reftest.RunDisconnects(t, tg.Core, f)
	return reference{tg}
}
