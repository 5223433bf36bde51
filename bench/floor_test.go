package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/imbench/imbench/load/verify"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
)

// The floor client of each protocol, against the in-process reference
// target, reads every push the target wrote (its own counter), has every
// send answered and, over Wildfire, pulls every message it was notified of.
func TestBenchFloorReadsEveryPush(t *testing.T) {
	const users, messages = 6, 25
	for _, proto := range []string{"openim", "wukongim", "wildfire"} {
		t.Run(proto, func(t *testing.T) {
			o := FloorOptions{Protocol: proto, Users: users, Rate: 500, Messages: messages, Body: 128, Prefix: "floor_",
				Out: filepath.Join(t.TempDir(), "floor.json")}
			var pushed func() float64
			switch proto {
			case "openim":
				tg := reftest.Start(t, core.Faults{})
				o.API, o.Gateway, o.Secret = tg.APIURL, tg.WSURL, tg.Secret
				pushed = func() float64 { return tg.Counter(t, "imbench_target_pushes_total") }
			case "wukongim":
				tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
				o.API, o.Gateway, o.Secret = tg.APIURL, tg.TCPAddr, tg.Secret
				pushed = func() float64 { return tg.Counter(t, "imbench_target_pushes_total") }
			case "wildfire":
				// An MP answers one message: the receivers pull page after page.
				tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{MaxPullBytes: 1})
				o.API, o.Gateway, o.Secret = tg.AdminURL, tg.MQTTAddr, tg.Secret
				pushed = func() float64 { return tg.Counter(t, "imbench_target_pushes_total") }
			}
			if err := RunFloor(o); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(o.Out)
			if err != nil {
				t.Fatal(err)
			}
			var rep floorReport
			if err := json.Unmarshal(raw, &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Sent != messages || rep.Acked != messages || rep.Refused != 0 {
				t.Fatalf("sent %d, answered %d, refused %d; want %d answered, none refused", rep.Sent, rep.Acked, rep.Refused, messages)
			}
			if want := int64(pushed()); rep.Pushes != want || want < messages*(users-1) {
				t.Fatalf("read %d pushes, the target wrote %d (at least %d owed)", rep.Pushes, want, messages*(users-1))
			}
			if proto == "wildfire" && rep.Pulled != rep.Pushes {
				t.Fatalf("pulled %d messages of the %d notified", rep.Pulled, rep.Pushes)
			}
		})
	}
}

// The floor's texts are the generator's: verifier bodies of the bench's
// size, one per message.
func TestFloorSendsTheGeneratorsTexts(t *testing.T) {
	text := floorText(nil, 3, 7, deliveryBody)
	b, err := verify.ParseBody(text)
	if err != nil || len(text) != deliveryBody || b.Sender != 3 || b.N != 7 {
		t.Fatalf("%q: %+v, %v", text, b, err)
	}
}

// The floor keeps the plan's rate while the generator held it, and takes
// the generator's achieved rate once it fell more than 5 % short.
func TestFloorRunsAtTheGeneratorsPace(t *testing.T) {
	for _, c := range []struct{ planned, sent, want float64 }{
		{400, 399.2, 400},
		{400, 381, 400},
		{2000, 950.4, 950},
		{1100, 846.6, 847},
		{50, 0, 50}, // nothing measured: the plan's
	} {
		if got := floorRate(c.planned, c.sent); got != c.want {
			t.Errorf("floorRate(%g, %g) = %g, want %g", c.planned, c.sent, got, c.want)
		}
	}
}
