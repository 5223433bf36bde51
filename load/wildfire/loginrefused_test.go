package wildfire_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/wildfire"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// A CONNACK refusing a first login is a refusal to the engine: counted as
// refused, not retried as a transient drop, and the user is never online;
// the others log in.
func TestRefusedFirstLoginIsNotRetried(t *testing.T) {
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	p := testPlan(t, "refused", `{"kind":"pairs","pairs":2,"allOnline":true,"rate":1,"messages":1}`)
	d := newDriver(t, tg, p)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := d.Setup(ctx, func(string) {}); err != nil {
		t.Fatal(err)
	}
	wildfire.BreakSession(t, d, 1)
	sh := engine.NewShared("refused", p, d, engine.Options{LoginRetries: 3, ReconnectDelay: 10 * time.Millisecond,
		ReconnectCap: 20 * time.Millisecond})
	s := sh.NewSession(ctx, 0, uint32(p.Users))
	r := s.Login(plan.Immediate)
	s.Close()
	if r.Online != p.Users-1 || r.Failed != 1 || !errors.Is(r.FirstErr, engine.ErrLoginRefused) {
		t.Fatalf("login phase %+v, want all but one online and a refusal", r)
	}
	tot := sh.Totals()
	if tot.LoginFailed[engine.LoginRefused] != 1 || tot.LoginFailed[engine.LoginOther] != 0 ||
		tot.LoginRetried[engine.LoginRefused]+tot.LoginRetried[engine.LoginOther] != 0 || tot.NeverOnline != 1 {
		t.Fatalf("failed %v, retried %v, never online %d; want one refusal, no retry", tot.LoginFailed, tot.LoginRetried, tot.NeverOnline)
	}
}

// A server busy or a login on the wrong node may succeed later: they are
// not refusals, so the engine retries them.
func TestTransientConnacksAreRetried(t *testing.T) {
	for _, code := range []wire.ConnectReturnCode{wire.ConnackServerUnavailable, wire.ConnackUnexpectedNode} {
		if err := error(&wildfire.LoginError{User: "u", Code: code}); errors.Is(err, engine.ErrLoginRefused) {
			t.Errorf("CONNACK %d is a refusal to the engine", code)
		}
	}
	if err := error(&wildfire.LoginError{User: "u", Code: wire.ConnackNotAuthorized}); !errors.Is(err, engine.ErrLoginRefused) {
		t.Error("CONNACK 5 is not a refusal")
	}
}
