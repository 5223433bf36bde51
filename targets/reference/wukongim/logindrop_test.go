package wukongim_test

import (
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	"github.com/imbench/imbench/targets/reference/wukongim"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// The login-drop fault drops logins in a burst only, and only those that
// would succeed: closed before the CONNACK, or left without one; each is
// counted by how, and a refused login stays a silent refusal.
func TestLoginDropsInABurst(t *testing.T) {
	tg := reftest.StartWuKongIMWith(t, core.Faults{}, reftest.WKOptions{AuthFailDelay: 200 * time.Millisecond})
	users(t, tg, "u1", "u2", "u3", "u4")
	if err := tg.Front.SetLoginDrops(wukongim.LoginDrops{Close: 1, Burst: 2, Window: time.Minute, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	// The first two CONNECTs make the burst; they log in.
	for _, u := range []string{"u1", "u2"} {
		c := dial(t, tg, viaTCP)
		if ack := c.connect(login{uid: u, token: "tk-" + u}); ack.ReasonCode != wire.ReasonSuccess {
			t.Fatalf("%s before the burst: %+v", u, ack)
		}
	}
	// In the burst: closed at once, no CONNACK.
	c := dial(t, tg, viaTCP)
	start := time.Now()
	if _, err := c.tryConnect(login{uid: "u3", token: "tk-u3"}, 5*time.Second); err == nil || isTimeout(err) || time.Since(start) > time.Second {
		t.Fatalf("a dropped login: %v after %s, want the connection closed at once", err, time.Since(start))
	}
	// A wrong token in the burst is refused as ever: silence, then the close.
	c = dial(t, tg, viaTCP)
	start = time.Now()
	if _, err := c.tryConnect(login{uid: "u4", token: "wrong"}, 5*time.Second); err == nil || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("a refused login in a burst: %v after %s", err, time.Since(start))
	}
	if n := tg.Counter(t, "imbench_target_fault_login_drops_total"); n != 1 {
		t.Fatalf("%v drops counted, want 1", n)
	}
	// Silent: no CONNACK, the connection open until the client gives up.
	if err := tg.Front.SetLoginDrops(wukongim.LoginDrops{Silent: 1, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	c = dial(t, tg, viaWS)
	if _, err := c.tryConnect(login{uid: "u3", token: "tk-u3"}, 400*time.Millisecond); !isTimeout(err) {
		t.Fatalf("a login left without its CONNACK: %v, want a timeout", err)
	}
	if n := tg.Counter(t, "imbench_target_fault_login_drops_total"); n != 2 {
		t.Fatalf("%v drops counted, want 2", n)
	}
	if err := tg.Front.SetLoginDrops(wukongim.LoginDrops{Close: 0.7, Silent: 0.7}); err == nil {
		t.Fatal("rates adding up to more than 1 accepted")
	}
}
