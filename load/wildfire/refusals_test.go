package wildfire_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
	"github.com/imbench/imbench/load/wildfire"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
)

func testPlan(t *testing.T, prefix, class string) *plan.Plan {
	t.Helper()
	p, err := plan.Workload{Name: "wildfire/" + prefix, Prefix: prefix + "_", BodySize: 64,
		Classes: []json.RawMessage{json.RawMessage(class)}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newDriver(t *testing.T, tg *reftest.WFTarget, p *plan.Plan) *wildfire.Driver {
	t.Helper()
	d, err := wildfire.New(wildfire.Config{AdminURL: tg.AdminURL, MQTT: tg.MQTTAddr, Secret: tg.Secret, Timeout: 5 * time.Second}, p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A server whose per-client limit a plan's senders would reach stops the
// run at setup, before any load, in one line naming the setting; a plan
// that stays under it (paced, or closed with few messages a sender) runs
// and says so.
func TestRateLimitIsCheckedBeforeLoad(t *testing.T) {
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{RateLimit: 100})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fast := testPlan(t, "rlfast", `{"kind":"pairs","pairs":2,"allOnline":true,"inFlight":4,"messages":200}`)
	_, err := newDriver(t, tg, fast).Setup(ctx, func(string) {})
	var rl *wildfire.RateLimitError
	if !errors.As(err, &rl) || rl.Accepted != 100 || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "client.request_rate_limit") {
		t.Fatalf("closed pacing against a limit of 100: %v", err)
	}
	if sent := tg.Counter(t, "imbench_target_messages_stored_total"); sent != 0 {
		t.Fatalf("%v messages sent before the refusal", sent)
	}
	// 1 message a second per sender is 5 in 5 s: far under 100.
	var said []string
	slow := testPlan(t, "rlslow", `{"kind":"pairs","pairs":2,"allOnline":true,"rate":1,"messages":2}`)
	if _, err := newDriver(t, tg, slow).Setup(ctx, func(s string) { said = append(said, s) }); err != nil {
		t.Fatalf("a slow plan: %v", err)
	}
	if !strings.Contains(strings.Join(said, "\n"), "accepts about 100 requests per client") {
		t.Fatalf("the limit was not reported: %q", said)
	}
	// As fast as acknowledged, but 6 messages a sender (chatroom5k's):
	// never more than 6 in a window.
	said = nil
	few := testPlan(t, "rlfew", `{"kind":"pairs","pairs":2,"allOnline":true,"inFlight":4,"messages":6}`)
	if _, err := newDriver(t, tg, few).Setup(ctx, func(s string) { said = append(said, s) }); err != nil ||
		!strings.Contains(strings.Join(said, "\n"), "busiest user sends up to 6, below it") {
		t.Fatalf("6 messages a sender: %v %q", err, said)
	}
	// The release's limit off (the reference's default): said too.
	tg = reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	said = nil
	if _, err := newDriver(t, tg, testPlan(t, "rlnone", `{"kind":"pairs","pairs":1,"allOnline":true,"inFlight":4,"messages":5}`)).
		Setup(ctx, func(s string) { said = append(said, s) }); err != nil || !strings.Contains(strings.Join(said, "\n"), "let all 110 requests") {
		t.Fatalf("no limit: %v %q", err, said)
	}
}

type handler struct{}

func (handler) Arrive(verify.Arrival)           {}
func (handler) Closed(engine.Conn, error, bool) {}

// A login the server refuses is one line with the CONNACK's code.
func TestRefusedLoginIsOneLine(t *testing.T) {
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	p := testPlan(t, "badtok", `{"kind":"pairs","pairs":1,"allOnline":true,"rate":1,"messages":1}`)
	d := newDriver(t, tg, p)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := d.Setup(ctx, func(string) {}); err != nil {
		t.Fatal(err)
	}
	wildfire.BreakSession(t, d, 1)
	_, err := d.Connect(ctx, 1, handler{})
	var le *wildfire.LoginError
	if !errors.As(err, &le) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "CONNACK code 4") {
		t.Fatalf("a wrong token's password: %v", err)
	}
}
