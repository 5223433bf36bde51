package conformance

import (
	"fmt"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// Logins the server drops (closed before its answer, or never answered,
// as a real WuKongIM does to a few logins of a burst) are tried again:
// every failure counted by its cause as the target counts its drops, each
// one retried, every user online in the end, nothing lost, nothing
// counted twice.
func testLoginDrops(t *testing.T, h Harness) {
	for _, c := range []struct {
		name  string
		f     Faults
		cause engine.LoginCause
		opts  map[string]any
	}{
		{"closed", Faults{LoginDropClose: 0.12, Seed: 31}, engine.LoginClosed, nil},
		// A dropped answer costs the client its handshake timeout.
		{"silent", Faults{LoginDropSilent: 0.08, Seed: 32}, engine.LoginNoAnswer, map[string]any{"timeout": "1s"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := h.Start(t, c.f)
			p := build(t, "drop"+c.name, mixed...)
			o := run(t, withOptions(srv.Target(), c.opts), p, 3,
				engine.Options{ReconnectDelay: 100 * time.Millisecond, ReconnectCap: 400 * time.Millisecond})
			tot := o.totals
			drops := int64(srv.Counter(t, LoginDropsCounter))
			failed, retried := tot.LoginFailed, tot.LoginRetried
			if drops == 0 || failed[c.cause] != drops || verify.Causes(failed) != drops || tot.ConnectErrors != drops {
				t.Fatalf("target dropped %d logins; the engine counted failures %v (%s), %d connect errors",
					drops, failed, causes(failed), tot.ConnectErrors)
			}
			if verify.Causes(retried) != drops || retried[c.cause] != drops || tot.LoginsRetried == 0 {
				t.Fatalf("%d drops, retried %v, %d users online after a retry", drops, retried, tot.LoginsRetried)
			}
			if tot.NeverOnline != 0 || o.rec.NeverOnline != 0 || verify.Sum(o.rec.NotAttempted) != 0 {
				t.Fatalf("%d users never online (reconciled %d, %v not attempted)", tot.NeverOnline, o.rec.NeverOnline, o.rec.NotAttempted)
			}
			if tot.LoginsImmediate != int64(p.Count(plan.Immediate)) || tot.LoginsLate != int64(p.Count(plan.Late)) {
				t.Fatalf("logins %d/%d of %d/%d", tot.LoginsImmediate, tot.LoginsLate, p.Count(plan.Immediate), p.Count(plan.Late))
			}
			exp := verify.Sum(tot.Expected)
			if exp == 0 || exp != o.received() || verify.Sum(o.rec.Lost) != 0 {
				t.Fatalf("expected %d received %d lost %v", exp, o.received(), o.rec.Lost)
			}
			if verify.Sum(tot.Duplicates)+verify.Sum(tot.PushedAfterPull)+tot.Corrupt != 0 {
				t.Fatalf("duplicates %v, pushed after pull %v, corrupt %d", tot.Duplicates, tot.PushedAfterPull, tot.Corrupt)
			}
			t.Logf("%d logins dropped (%s), all retried, %d users online after a retry", drops, c.name, tot.LoginsRetried)
		})
	}
	// The late users' logins, in a burst after the others', all dropped,
	// every retry too: they are reported never online and what they were
	// owed as not attempted, not as lost.
	t.Run("never-online", func(t *testing.T) {
		// Each group: its sender and two more online, four late. The six
		// immediate logins make the burst every later one is in.
		srv := h.Start(t, Faults{LoginDropClose: 1, LoginBurst: 6, LoginBurstWindow: time.Minute, Seed: 33})
		p := build(t, "dropall", `{"kind":"groups","groups":2,"members":7,"senders":1,"online":2,"late":4,"rate":50,"messages":5}`)
		o := runWith(t, srv.Target(), p, 1, engine.Options{LoginRetries: 2, ReconnectDelay: 20 * time.Millisecond, ReconnectCap: 40 * time.Millisecond},
			nil, true)
		tot, rec := o.totals, o.rec
		late := int64(p.Count(plan.Late))
		drops := int64(srv.Counter(t, LoginDropsCounter))
		if tot.LoginsImmediate != int64(p.Count(plan.Immediate)) || tot.LoginsLate != 0 || tot.NeverOnline != late || int64(rec.NeverOnline) != late {
			t.Fatalf("logins %d/%d, never online %d (reconciled %d), want %d immediate, %d never online",
				tot.LoginsImmediate, tot.LoginsLate, tot.NeverOnline, rec.NeverOnline, p.Count(plan.Immediate), late)
		}
		if drops != 3*late || tot.LoginFailed[engine.LoginClosed] != drops || tot.LoginRetried[engine.LoginClosed] != 2*late {
			t.Fatalf("target dropped %d logins; failed %v, retried %v; want 3 attempts of each of %d users", drops, tot.LoginFailed, tot.LoginRetried, late)
		}
		// 2 groups × 5 messages, each owed to 4 late members and 2 online.
		exp, na := verify.Sum(tot.Expected), verify.Sum(rec.NotAttempted)
		if exp != 2*5*6 || na != 2*5*4 || verify.Sum(rec.Lost) != 0 || o.received() != exp-na {
			t.Fatalf("expected %d, not attempted %d, received %d, lost %v", exp, na, o.received(), rec.Lost)
		}
	})
}

// causes lists per-cause counts by name.
func causes(a [verify.LoginCauses]int64) string {
	s := ""
	for i, n := range a {
		if n > 0 {
			s += fmt.Sprintf(" %s %d", verify.LoginCauseName(i), n)
		}
	}
	return s
}

// Back-to-back sends whose pushes the server reorders: out of order, no
// duplicate, nothing lost. Written later than the client's gap grace, the
// overtaken push meets the client's own gap pull: the message counts once,
// by pull, and its push as pushed after pull, never as a duplicate.
func testLatePushes(t *testing.T, h Harness) {
	backToBack := `{"kind":"pairs","pairs":2,"allOnline":true,"inFlight":16,"messages":150}`
	t.Run("back-to-back", func(t *testing.T) {
		srv := h.Start(t, Faults{Reorder: 0.1, ReorderHold: 500 * time.Millisecond, Seed: 34})
		o := run(t, srv.Target(), build(t, "b2b", backToBack), 2, engine.Options{})
		re := int64(srv.Counter(t, ReorderedCounter))
		tot := o.totals
		if re == 0 || verify.Sum(tot.OutOfOrder) != re || verify.Sum(tot.Duplicates) != 0 || verify.Sum(tot.PushedAfterPull) != 0 ||
			verify.Sum(tot.GapPulled) != 0 || verify.Sum(o.rec.Lost) != 0 {
			t.Fatalf("target reordered %d; out of order %v, duplicates %v, pushed after pull %v, gap pulls %v, lost %v",
				re, tot.OutOfOrder, tot.Duplicates, tot.PushedAfterPull, tot.GapPulled, o.rec.Lost)
		}
	})
	t.Run("late", func(t *testing.T) {
		srv := h.Start(t, Faults{Reorder: 0.1, ReorderHold: 500 * time.Millisecond, ReorderLate: 1500 * time.Millisecond, Seed: 35})
		o := run(t, srv.Target(), build(t, "latepush", integration, backToBack), 2, engine.Options{DrainQuiet: 3 * time.Second})
		re := int64(srv.Counter(t, ReorderedCounter))
		tot := o.totals
		if re == 0 || verify.Sum(tot.PushedAfterPull) != re || verify.Sum(tot.GapPulled) != re || verify.Sum(tot.OutOfOrder) != 0 ||
			verify.Sum(tot.Duplicates) != 0 || verify.Sum(o.rec.Lost) != 0 {
			t.Fatalf("target pushed %d late; pushed after pull %v, gap pulls %v, out of order %v, duplicates %v, lost %v",
				re, tot.PushedAfterPull, tot.GapPulled, tot.OutOfOrder, tot.Duplicates, o.rec.Lost)
		}
		if exp := verify.Sum(tot.Expected); exp != o.received() {
			t.Fatalf("expected %d, received %d", exp, o.received())
		}
	})
}
