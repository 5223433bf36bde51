package openim_test

import (
	"testing"
	"time"

	"github.com/imbench/imbench/load/conformance"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/openim"
	oimref "github.com/imbench/imbench/targets/reference/openim"
	"github.com/imbench/imbench/targets/reference/reftest"
)

// The shared suite, against the reference target's OpenIM front end, in
// both envelopes.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Harness{
		System:     "openim",
		Start:      startReference,
		ServerIdle: openimIdle,
		WrongCredentials: func(tgt engine.Target) engine.Target {
			tgt.Options = map[string]any{"secret": "wrong"}
			return tgt
		},
		Variants: map[string]map[string]any{"gob": {"envelope": "gob"}, "json": {"envelope": "json"}},
	})
}

func openimIdle(engine.Keepalive) time.Duration { return oimref.PongWait }

// The whole suite again with the SDK-faithful login: its login pulls and
// the engine's sync after them still count every fault exactly.
func TestConformanceSDKLogin(t *testing.T) {
	conformance.Run(t, conformance.Harness{
		System: "openim",
		Start: func(t testing.TB, f conformance.Faults) conformance.Server {
			r := startReference(t, f).(reference)
			r.login = openim.LoginSDK
			return r
		},
		ServerIdle: openimIdle,
		WrongCredentials: func(tgt engine.Target) engine.Target {
			tgt.Options = map[string]any{"secret": "wrong", "login": openim.LoginSDK}
			return tgt
		},
		Variants: map[string]map[string]any{"gob": {"envelope": "gob"}, "json": {"envelope": "json"}},
	})
}

type reference struct {
	tg    *reftest.Target
	login string
}

func (r reference) Target() engine.Target {
	opts := map[string]any{"secret": r.tg.Secret}
	if r.login != "" {
		opts["login"] = r.login
	}
	return engine.Target{Name: "reference", System: "openim",
		Endpoints: map[string]string{"api": r.tg.APIURL, "ws": r.tg.WSURL}, Options: opts}
}

func (r reference) Counter(t testing.TB, name string) float64 { return r.tg.Counter(t, name) }

func (r reference) DropAll() int { return r.tg.Core.DropAll() }

func (r reference) StallNextPulls(n int) { r.tg.Core.StallNextPulls(n) }

func startReference(t testing.TB, f conformance.Faults) conformance.Server {
	var tg *reftest.Target
	if f.Gateways > 0 {
		tg = reftest.StartCluster(t, reftest.Faults(f), f.Gateways)
	} else {
		tg = reftest.StartWith(t, reftest.Faults(f), f.ReadTimeout)
	}
	reftest.RunDisconnects(t, tg.Core, f)
	return reference{tg: tg}
}
