package wukongim_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
)

// A server with tokenAuthOn false logs in any token: setup stops setting
// them once it has seen so, and one that checks tokens gets every user's.
func TestSetupSetsNoTokenWhereTheServerChecksNone(t *testing.T) {
	for _, open := range []bool{true, false} {
		tg := reftest.StartWuKongIMWith(t, core.Faults{}, reftest.WKOptions{Open: open})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		p, err := plan.Workload{Name: "wukongim/tokens", Prefix: "tk_", BodySize: 64, Classes: []json.RawMessage{
			json.RawMessage(`{"kind":"pairs","pairs":1000,"rate":1,"messages":1}`),
		}}.Build()
		if err != nil {
			t.Fatal(err)
		}
		secret := tg.Secret
		if open {
			secret = ""
		}
		_, d := driverFor(t, tg, secret, p)
		var said []string
		began := time.Now()
		rep, err := d.Setup(ctx, func(s string) { said = append(said, s) })
		if err != nil {
			t.Fatal(err)
		}
		free := strings.Contains(strings.Join(said, "\n"), "the server checks no token")
		switch {
		case open && (!free || rep.Registered > p.Users/4):
			t.Errorf("token auth off: %d of %d tokens set; said %q", rep.Registered, p.Users, said)
		case !open && (free || rep.Registered != p.Users):
			t.Errorf("token auth on: %d of %d tokens set; said %q", rep.Registered, p.Users, said)
		case time.Since(began) > 10*time.Second:
			t.Errorf("setup took %v", time.Since(began))
		}
	}
}

// driverFor opens the reference target tg with secret and makes p's driver.
func driverFor(t *testing.T, tg *reftest.WKTarget, secret string, p *plan.Plan) (engine.Protocol, engine.Driver) {
	t.Helper()
	tgt := engine.Target{Name: "reference", System: "wukongim",
		Endpoints: map[string]string{"wukongim_api": tg.APIURL, "wukongim_tcp": tg.TCPAddr, "wukongim_ws": tg.WSURL},
		Options:   map[string]any{"secret": secret}}
	_, proto, err := tgt.Open()
	if err != nil {
		t.Fatal(err)
	}
	d, err := proto.Driver(p, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return proto, d
}
