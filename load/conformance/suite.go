package conformance

import (
	"context"
	"fmt"
	"maps"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/testmachine"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// The seed's Test 1 shape at a size a test affords, sent fast.
const integration = `{"kind":"integration","users":24,"superUsers":3,"largeGroups":2,"commonGroups":2,
	"commonGroupMembers":5,"loginRatio":0.5,"singleMessages":4,"groupMessages":4,"rate":800}`

// Every presence and every pace: groups with online, late and never
// members, pairs with late receivers, burst-paced groups, a closed-loop pair.
var mixed = []string{
	integration,
	`{"kind":"groups","groups":4,"members":8,"senders":2,"online":3,"late":2,"totalRate":200,"messages":5}`,
	`{"kind":"pairs","pairs":6,"lateShare":0.5,"totalRate":100,"messages":3}`,
	`{"kind":"pairs","senders":2,"receivers":5,"watchers":1,"totalRate":100,"messages":2}`,
	`{"kind":"groups","groups":3,"members":5,"senders":1,"allOnline":true,"ratePerMinute":600,"pace":"burst","messages":15}`,
	`{"kind":"pairs","pairs":1,"allOnline":true,"inFlight":8,"messages":300}`,
}

// Run runs the suite against the protocol h serves: each case against a
// target of its own, side by side (testmachine.Shared).
func Run(t *testing.T, h Harness) {
	if _, err := engine.Lookup(h.System); err != nil {
		t.Fatal(err)
	}
	t.Run("clean", func(t *testing.T) { testmachine.Shared(t); testClean(t, h) })
	t.Run("refusals", func(t *testing.T) { testmachine.Shared(t); testRefusals(t, h) })
	t.Run("lose", func(t *testing.T) { testmachine.Shared(t); testLose(t, h) })
	t.Run("lose-by-presence", func(t *testing.T) { testmachine.Shared(t); testLoseByPresence(t, h) })
	t.Run("store-check", func(t *testing.T) { testmachine.Shared(t); testStoreCheck(t, h) })
	t.Run("store-unanswered", func(t *testing.T) { testmachine.Shared(t); testStoreUnanswered(t, h) })
	t.Run("batch-drop", func(t *testing.T) { testmachine.Shared(t); testBatchDrop(t, h) })
	t.Run("skip-push", func(t *testing.T) { testmachine.Shared(t); testSkipPush(t, h) })
	t.Run("pulls-apart", func(t *testing.T) { testmachine.Shared(t); testPullsApart(t, h) })
	t.Run("duplicate", func(t *testing.T) { testmachine.Shared(t); testDuplicate(t, h) })
	t.Run("reorder", func(t *testing.T) { testmachine.Shared(t); testReorder(t, h) })
	t.Run("delay", func(t *testing.T) { testmachine.Shared(t); testDelay(t, h) })
	t.Run("ack-late", func(t *testing.T) { testmachine.Shared(t); testAckLate(t, h) })
	t.Run("disconnect", func(t *testing.T) { testmachine.Shared(t); testDisconnect(t, h) })
	t.Run("storm", func(t *testing.T) { testmachine.Shared(t); testStorm(t, h) })
	t.Run("heartbeats", func(t *testing.T) { testmachine.Shared(t); testHeartbeats(t, h) })
	t.Run("quiet-spell", func(t *testing.T) { testmachine.Shared(t); testQuietSpell(t, h) })
	t.Run("sdk-keepalive", func(t *testing.T) { testmachine.Shared(t); testSDKKeepalive(t, h) })
	t.Run("gateways", func(t *testing.T) { testmachine.Shared(t); testGateways(t, h) })
	t.Run("chatroom", func(t *testing.T) { testmachine.Shared(t); testChatroom(t, h) })
	t.Run("populations", func(t *testing.T) { testmachine.Shared(t); testPopulations(t, h) })
	t.Run("every-fault", func(t *testing.T) { testmachine.Shared(t); testEveryFault(t, h) })
	if h.LoginDrops {
		t.Run("login-drops", func(t *testing.T) { testmachine.Shared(t); testLoginDrops(t, h) })
	}
	if h.LatePushes {
		t.Run("late-pushes", func(t *testing.T) { testmachine.Shared(t); testLatePushes(t, h) })
	}
}

// Chatroom members joining while messages flow get exactly what was sent
// once they were in; what a lossy room drops is counted as missed. Skipped
// by a protocol that carries no chatrooms.
func testChatroom(t *testing.T, h Harness) {
	room := `{"kind":"chatroom","rooms":2,"members":12,"senders":2,"joinRate":50,"rate":100,"messages":10}`
	srv := h.Start(t, Faults{})
	o := run(t, srv.Target(), build(t, "room", room), 1, engine.Options{})
	r := verify.RoomIndex
	if o.totals.Expected[r] == 0 || o.rec.Lost[r] != 0 || o.totals.Pushed[r] != o.totals.Expected[r] {
		t.Fatalf("clean room: expected %d, pushed %d, missed %d", o.totals.Expected[r], o.totals.Pushed[r], o.rec.Lost[r])
	}
	// Lossy: every member joins before sending. A join is recorded when its
	// answer comes back, after the server added the member, so a message
	// the server handles in between would count that member there and not
	// here; the clean room above covers joins while messages flow.
	lossy := `{"kind":"chatroom","rooms":2,"members":12,"senders":2,"rate":100,"messages":10}`
	srv = h.Start(t, Faults{Lose: 0.05, Seed: 21})
	o = run(t, srv.Target(), build(t, "roomlose", lossy), 1, engine.Options{})
	if lost := int64(srv.Counter(t, LostCounter)); lost == 0 || o.rec.Lost[r] != lost || verify.Owed(o.rec.Lost) != 0 {
		t.Fatalf("lossy room: target lost %d, verifier missed %d (owed lost %d)", lost, o.rec.Lost[r], verify.Owed(o.rec.Lost))
	}
}

func withOptions(tgt engine.Target, opts map[string]any) engine.Target {
	merged := map[string]any{}
	for k, v := range tgt.Options {
		merged[k] = v
	}
	for k, v := range opts {
		merged[k] = v
	}
	tgt.Options = merged
	return tgt
}

func testClean(t *testing.T, h Harness) {
	variants := h.Variants
	if len(variants) == 0 {
		variants = map[string]map[string]any{"default": nil}
	}
	for name, opts := range variants {
		t.Run(name, func(t *testing.T) {
			srv := h.Start(t, Faults{})
			p := build(t, "clean"+name, mixed...)
			o := run(t, withOptions(srv.Target(), opts), p, 3, engine.Options{})
			tot := o.totals
			exp := verify.Sum(tot.Expected)
			if exp == 0 || exp != o.received() || verify.Sum(o.rec.Lost) != 0 {
				t.Fatalf("expected %d received %d lost %v", exp, o.received(), o.rec.Lost)
			}
			if verify.Sum(tot.Sent) != p.Planned() || verify.Sum(tot.Acked) != p.Planned() {
				t.Fatalf("sent %v acked %v of %d", tot.Sent, tot.Acked, p.Planned())
			}
			if verify.Sum(tot.Duplicates)+verify.Sum(tot.OutOfOrder)+tot.Corrupt+tot.Foreign != 0 {
				t.Fatalf("clean run saw dup %v ooo %v corrupt %d foreign %d", tot.Duplicates, tot.OutOfOrder, tot.Corrupt, tot.Foreign)
			}
			// Late users got theirs by pull at login; nobody pulled a gap,
			// a sender's own messages included.
			if verify.Sum(tot.GapPulled) != 0 || verify.Sum(tot.Pulled) == 0 || tot.GapPullRequests != 0 {
				t.Fatalf("pulled %v gap-pulled %v in %d gap pulls", tot.Pulled, tot.GapPulled, tot.GapPullRequests)
			}
			if tot.LoginsImmediate != int64(p.Count(plan.Immediate)) || tot.LoginsLate != int64(p.Count(plan.Late)) {
				t.Fatalf("logins %d/%d", tot.LoginsImmediate, tot.LoginsLate)
			}
			if o.peak != int64(p.Count(plan.Immediate)+p.Count(plan.Late)) {
				t.Fatalf("online peak %d, want every user but the never-online", o.peak)
			}
			if o.e2e.Count() != verify.Sum(tot.Pushed) {
				t.Fatalf("latency samples %d for %d pushed deliveries", o.e2e.Count(), verify.Sum(tot.Pushed))
			}
		})
	}
}

func testRefusals(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	preflight := func(tgt engine.Target) error {
		_, proto, err := tgt.Open()
		if err != nil {
			return err
		}
		return proto.Preflight(ctx)
	}
	if err := preflight(srv.Target()); err != nil {
		t.Fatalf("the target's own credentials: %v", err)
	}
	if err := preflight(h.WrongCredentials(srv.Target())); err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("wrong credentials: %v, want a one-line refusal", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := l.Addr().String()
	l.Close()
	tgt := srv.Target()
	tgt.Endpoints = map[string]string{}
	for name, raw := range srv.Target().Endpoints {
		host := raw[strings.Index(raw, "://")+3:]
		if i := strings.IndexAny(host, "/,"); i >= 0 {
			host = host[:i]
		}
		tgt.Endpoints[name] = strings.Replace(raw, host, down, 1)
	}
	if err := preflight(tgt); err == nil || !strings.Contains(err.Error(), "not reachable") {
		t.Fatalf("target down: %v, want not reachable", err)
	}
}

func testLose(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{Lose: 0.05, Seed: 7})
	o := run(t, srv.Target(), build(t, "lose", integration), 2, engine.Options{})
	lost, want := verify.Sum(o.rec.Lost), int64(srv.Counter(t, LostCounter))
	if want == 0 || lost != want {
		t.Fatalf("verifier lost %d, target lost %d", lost, want)
	}
	if len(o.rec.Sample) == 0 {
		t.Fatal("no lost deliveries named")
	}
}

// Lost messages owe deliveries only to the members who are online, log in
// late or watch; the never-online ones expect nothing. Every group has the
// same presence, so the verifier's lost is the target's lost messages times
// the five who are owed each: two online, two late, one watcher.
func testLoseByPresence(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{Lose: 0.05, Seed: 14})
	o := run(t, srv.Target(), build(t, "losepres",
		`{"kind":"groups","groups":6,"members":12,"senders":1,"online":2,"late":2,"watchers":1,"totalRate":400,"messages":40}`), 2, engine.Options{})
	msgs := int64(srv.Counter(t, LostMessagesCounter))
	if msgs == 0 || verify.Sum(o.rec.Lost) != 5*msgs || verify.Sum(o.totals.Pulled) == 0 {
		t.Fatalf("target lost %d messages, verifier lost %d deliveries (want %d), pulled %v", msgs, verify.Sum(o.rec.Lost), 5*msgs, o.totals.Pulled)
	}
	// The target counts a lost delivery against a member when it logs in,
	// never against one that never does: its count is the verifier's.
	if lost := int64(srv.Counter(t, LostCounter)); lost != verify.Sum(o.rec.Lost) {
		t.Fatalf("target lost %d deliveries, verifier %d", lost, verify.Sum(o.rec.Lost))
	}
}

// Every fault at once, with group members who never log in: lost (by the
// lose fault and by dropped batches), skipped, duplicated and reordered
// pushes, answers late past the client's timeout (some of them in dropped
// batches), every connection dropped once the sends are done, and the
// store check's first reads unanswered. Each of imbench's counts equals
// the target's own counter: lost and never stored = its lost deliveries,
// unanswered = its late answers, duplicates, out of order, disconnects,
// the store check's retries = its unanswered pulls; nothing late (the
// drain's sync pulls what a skipped push left) or unchecked.
func testEveryFault(t *testing.T, h Harness) {
	f := Faults{Lose: 0.03, SkipPush: 0.05, Duplicate: 0.05, Reorder: 0.1, ReorderHold: 300 * time.Millisecond,
		BatchDrop: 12, AckLate: 0.05, AckLateBy: 3 * time.Second, Seed: 41}
	srv := h.Start(t, f)
	p := build(t, "everyfault",
		`{"kind":"groups","groups":4,"members":10,"senders":2,"online":3,"late":2,"watchers":1,"totalRate":200,"messages":30}`,
		`{"kind":"pairs","pairs":1,"allOnline":true,"inFlight":16,"messages":150}`, // batches past BatchDrop
		`{"kind":"pairs","pairs":6,"lateShare":0.5,"totalRate":100,"messages":4}`)
	dropped := 0
	o := runHooked(t, withOptions(srv.Target(), map[string]any{"timeout": "1500ms"}), p, 2,
		engine.Options{ReconnectDelay: 100 * time.Millisecond, ReconnectCap: 400 * time.Millisecond}, hooks{
			// Once held pushes and batches are out, every connection drops.
			sent:    func() { time.Sleep(f.ReorderHold + time.Second); dropped = srv.DropAll() },
			drained: func() { srv.StallNextPulls(3) }, // the store check's reads alone meet it
		}, false, true)
	never := 0
	for u := range p.Users {
		if !p.Reachable(uint32(u)) {
			never++
		}
	}
	c := o.check
	if c == nil {
		t.Fatal("nothing was owed after the drain: no store check")
	}
	got := map[string][2]int64{
		"lost = the target's lost deliveries":          {verify.Sum(o.rec.Lost), int64(srv.Counter(t, LostCounter))},
		"never stored = the target's lost deliveries":  {verify.Sum(o.rec.NeverStored), int64(srv.Counter(t, LostCounter))},
		"unanswered = the target's late answers":       {verify.Sum(o.totals.Unanswered), int64(srv.Counter(t, LateAcksCounter))},
		"duplicates = the target's duplicated pushes":  {verify.Sum(o.totals.Duplicates), int64(srv.Counter(t, DuplicatedCounter))},
		"out of order = the target's reordered pushes": {verify.Sum(o.totals.OutOfOrder), int64(srv.Counter(t, ReorderedCounter))},
		"disconnects = the target's":                   {o.totals.Disconnects, int64(srv.Counter(t, DisconnectsCounter))},
		"store check retries = its unanswered pulls":   {int64(c.Retries), int64(srv.Counter(t, StalledPullsCounter))},
		"late = 0":      {verify.Sum(o.rec.Late), 0},
		"unchecked = 0": {verify.Sum(o.rec.Unchecked) + c.Unchecked, 0},
	}
	for what, v := range got {
		if v[0] != v[1] {
			t.Errorf("%s: imbench %d, target %d", what, v[0], v[1])
		}
	}
	// Each fault fired, or the equalities prove nothing. A Wildfire feed
	// keeps only what its user has not yet pulled: the store check's read of
	// a message never stored finds nothing there, which no stall holds up
	// (store-unanswered stalls Wildfire's reads of what it holds).
	fired := []string{LostCounter, SkippedCounter, DuplicatedCounter, ReorderedCounter, LateAcksCounter, BatchDropsCounter}
	if h.System != "wildfire" {
		fired = append(fired, StalledPullsCounter)
	}
	for _, name := range fired {
		if srv.Counter(t, name) == 0 {
			t.Errorf("%s stayed 0", name)
		}
	}
	if never == 0 || dropped == 0 || int64(dropped) != o.totals.Disconnects {
		t.Errorf("%d users never online, %d dropped, %d disconnects", never, dropped, o.totals.Disconnects)
	}
}

// The store check splits what is owed after the drain exactly: a lost
// message (acknowledged, never stored) is never stored, a skipped push the
// client never noticed (no later message showed the gap, and the drain's
// own sync is off) is late, found by the receiver's read of the store.
func testStoreCheck(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{Lose: 0.05, SkipPush: 0.1, Seed: 22})
	// Pairs with one message each: a push skipped there has no later
	// message to reveal it (Wildfire's next notify would pull it), so some
	// are late whatever the order of events.
	o := runChecked(t, srv.Target(), build(t, "stored", integration,
		`{"kind":"groups","groups":4,"members":5,"allOnline":true,"totalRate":200,"messages":10}`,
		`{"kind":"pairs","pairs":100,"allOnline":true,"totalRate":400,"messages":1}`),
		2, engine.Options{NoDrainSync: true}, nil, false, true)
	lost, skipped := int64(srv.Counter(t, LostCounter)), int64(srv.Counter(t, SkippedCounter))
	late := skipped - verify.Sum(o.totals.GapPulled)
	c := o.check
	t.Logf("target: %d deliveries lost, %d pushes skipped, %d pulled after a gap; verifier: never stored %v, late %v, lost %v",
		lost, skipped, verify.Sum(o.totals.GapPulled), o.rec.NeverStored, o.rec.Late, o.rec.Lost)
	switch {
	case c == nil || lost == 0 || late <= 0:
		t.Fatalf("target lost %d and skipped %d pushes (%d pulled after a gap): nothing to split; check %+v", lost, skipped, verify.Sum(o.totals.GapPulled), c)
	case verify.Sum(o.rec.NeverStored) != lost || verify.Sum(o.rec.Lost) != lost:
		t.Fatalf("never stored %v, lost %v: want the target's %d lost deliveries; check %+v", o.rec.NeverStored, o.rec.Lost, lost, c)
	case verify.Sum(o.rec.Late) != late:
		t.Fatalf("late %v, want the %d skipped pushes no gap pull recovered; check %+v", o.rec.Late, late, c)
	case c.Unchecked != 0 || c.ReadsFail != 0:
		t.Fatalf("check %+v", c)
	}
}

// A server behind on its work leaves some store reads unanswered: the
// check tries each read again, and what it could not read is unchecked,
// neither late nor lost. Every push is skipped (no later message reveals
// a gap, the drain's sync is off), so every delivery is owed and stored,
// and the only pulls that find messages are the check's.
func testStoreUnanswered(t *testing.T, h Harness) {
	pairs := `{"kind":"pairs","pairs":12,"allOnline":true,"totalRate":400,"messages":1}`
	for _, c := range []struct {
		name   string
		stalls int
	}{{"tried-again", 3}, {"never-answered", 1 << 20}} {
		t.Run(c.name, func(t *testing.T) {
			srv := h.Start(t, Faults{SkipPush: 1, StallPulls: c.stalls, Seed: 24})
			tgt := srv.Target()
			tgt.Options = maps.Clone(tgt.Options)
			if tgt.Options == nil {
				tgt.Options = map[string]any{}
			}
			tgt.Options["timeout"] = "1s" // how long a read waits for its answer
			o := runChecked(t, tgt, build(t, "stall", pairs), 1, engine.Options{NoDrainSync: true}, nil, false, true)
			owed, stalled := int64(srv.Counter(t, SkippedCounter)), int(srv.Counter(t, StalledPullsCounter))
			ch := o.check
			t.Logf("target: %d pushes skipped, %d pulls unanswered; verifier: late %v, unchecked %v, lost %v; check %+v",
				owed, stalled, o.rec.Late, o.rec.Unchecked, o.rec.Lost, ch)
			if owed == 0 || ch == nil || verify.Owed(o.rec.Lost) != 0 {
				t.Fatalf("owed %d, lost %v, check %+v", owed, o.rec.Lost, ch)
			}
			if c.stalls > 1000 { // every read was left unanswered, each try
				if ch.ReadsFail != ch.Reads || ch.Retries != 2*ch.Reads || stalled != 3*ch.Reads ||
					ch.Unchecked != owed || verify.Owed(o.rec.Unchecked) != owed || verify.Owed(o.rec.Late) != 0 {
					t.Fatalf("want all %d deliveries unchecked after %d reads tried 3 times each (target: %d unanswered)", owed, ch.Reads, stalled)
				}
				return
			}
			if stalled != c.stalls || ch.Retries != stalled || ch.ReadsFail != 0 || ch.Unchecked != 0 ||
				verify.Owed(o.rec.Late) != owed || verify.Owed(o.rec.Unchecked) != 0 {
				t.Fatalf("want the %d reads left unanswered tried again and all %d deliveries late", stalled, owed)
			}
		})
	}
}

// OpenIM's msgtransfer drops a conversation's batch of more than 100
// acknowledged messages unstored: the store check names them never
// stored, exactly the target's count, and none late.
func testBatchDrop(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{BatchDrop: 3, Seed: 23})
	o := runChecked(t, srv.Target(), build(t, "batch",
		`{"kind":"pairs","pairs":1,"allOnline":true,"inFlight":8,"messages":120}`,
		`{"kind":"groups","groups":2,"members":4,"allOnline":true,"totalRate":4,"messages":4}`),
		1, engine.Options{}, nil, false, true)
	lost, batches := int64(srv.Counter(t, LostCounter)), srv.Counter(t, BatchDropsCounter)
	t.Logf("target: %v batches dropped, %d deliveries; verifier: never stored %v, late %v, lost %v", batches, lost, o.rec.NeverStored, o.rec.Late, o.rec.Lost)
	if batches == 0 || lost == 0 || verify.Sum(o.rec.NeverStored) != lost || verify.Sum(o.rec.Lost) != lost ||
		verify.Sum(o.rec.Late) != 0 || o.check == nil || o.check.Unchecked != 0 {
		t.Fatalf("target dropped %v batches, %d deliveries; verifier never stored %v, lost %v, late %v; check %+v",
			batches, lost, o.rec.NeverStored, o.rec.Lost, o.rec.Late, o.check)
	}
	if int64(o.check.Split.MessagesNeverStored) != int64(srv.Counter(t, LostMessagesCounter)) {
		t.Fatalf("messages never stored %d, target dropped %v", o.check.Split.MessagesNeverStored, srv.Counter(t, LostMessagesCounter))
	}
}

func testSkipPush(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{SkipPush: 0.05, Seed: 8})
	o := run(t, srv.Target(), build(t, "skip", integration), 2, engine.Options{})
	skipped := int64(srv.Counter(t, SkippedCounter))
	if skipped == 0 || verify.Sum(o.rec.Lost) != 0 || verify.Sum(o.totals.GapPulled) != skipped {
		t.Fatalf("skipped %d, recovered by pull %d, lost %v", skipped, verify.Sum(o.totals.GapPulled), o.rec.Lost)
	}
}

// A count means one thing: what a user away for a spell, or dropped, was
// sent meanwhile is pulled at its return or reconnect and counted there,
// never as a gap; a gap pull is a push the server owed and skipped, so
// by_gap_pull equals the target's skipped pushes with spells away and
// drops in the workload too. The spells begin and end a quarter second
// from any message's due time, so no push is in flight as a user leaves.
func testPullsApart(t *testing.T, h Harness) {
	const away = `{"kind":"groups","groups":3,"members":6,"senders":1,"allOnline":true,"away":[{"at":"2250ms","for":"1s","share":0.5}],"rate":2,"duration":"5s"}`
	for _, c := range []struct {
		name   string
		faults Faults
	}{
		{"clean", Faults{}},
		{"skip-push", Faults{SkipPush: 0.1, Seed: 31}},
		{"disconnect", Faults{DisconnectEvery: 1300 * time.Millisecond, DisconnectCount: 2, Seed: 32}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := h.Start(t, c.faults)
			o := run(t, srv.Target(), build(t, "apart"+strings.ReplaceAll(c.name, "-", ""), away), 2, engine.Options{})
			tot := o.totals
			gap, back, again := verify.Owed(tot.GapPulled), verify.Owed(tot.CatchupPulled[verify.CatchupReturn]), verify.Owed(tot.CatchupPulled[verify.CatchupReconnect])
			skipped := int64(srv.Counter(t, SkippedCounter))
			if verify.Owed(o.rec.Lost) != 0 || back == 0 || tot.LoginsBack != tot.Logouts {
				t.Fatalf("lost %v; %d pulled at a return (%d logouts, %d back)", o.rec.Lost, back, tot.Logouts, tot.LoginsBack)
			}
			if c.faults.DisconnectEvery == 0 && gap != skipped {
				t.Fatalf("by gap pull %d, target skipped %d pushes (%d pulled at a return, %d at a reconnect)", gap, skipped, back, again)
			}
			if c.faults.DisconnectEvery > 0 && (tot.Reconnects == 0 || again == 0) {
				t.Fatalf("%d reconnects, %d pulled at a reconnect", tot.Reconnects, again)
			}
			if pulled := verify.Owed(tot.Pulled); pulled < gap+back+again {
				t.Fatalf("pulled %d, below its parts: gap %d, return %d, reconnect %d", pulled, gap, back, again)
			}
		})
	}
}

func testDuplicate(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{Duplicate: 0.05, Seed: 9})
	o := run(t, srv.Target(), build(t, "dup", integration), 2, engine.Options{})
	dup := int64(srv.Counter(t, DuplicatedCounter))
	if dup == 0 || verify.Sum(o.totals.Duplicates) != dup || verify.Sum(o.rec.Lost) != 0 {
		t.Fatalf("target duplicated %d, verifier counted %v, lost %v", dup, o.totals.Duplicates, o.rec.Lost)
	}
}

// The hold must end before the drain's quiet period, or the final sync
// pulls a still-held push and its late arrival counts as pushed after pull
// (late-pushes tests that on purpose).
func testReorder(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{Reorder: 0.2, ReorderHold: 500 * time.Millisecond, Seed: 10})
	o := run(t, srv.Target(), build(t, "reorder", integration), 2, engine.Options{})
	re := int64(srv.Counter(t, ReorderedCounter))
	if re == 0 || verify.Sum(o.totals.OutOfOrder) != re || verify.Sum(o.rec.Lost) != 0 ||
		verify.Sum(o.totals.GapPulled) != 0 || verify.Sum(o.totals.Duplicates) != 0 {
		t.Fatalf("target reordered %d, verifier counted %v out of order, gap pulls %v, duplicates %v, lost %v",
			re, o.totals.OutOfOrder, o.totals.GapPulled, o.totals.Duplicates, o.rec.Lost)
	}
}

func testDelay(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{Delay: 50 * time.Millisecond})
	o := run(t, srv.Target(), build(t, "delay", integration), 1, engine.Options{})
	if p50 := o.e2e.QuantileMs(0.5); p50 <= 50 {
		t.Fatalf("p50 %v ms with a 50 ms delay", p50)
	}
}

// A send the server stored and pushed but answered past the client's
// timeout is unanswered, not failed, and the deliveries it made are
// neither expected (so not lost) nor unexpected: the verdict names a slow
// answer, as a real Wildfire overloaded by chatroom1k gave.
func testAckLate(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{AckLate: 0.15, AckLateBy: 3 * time.Second, Seed: 16})
	const members = 6 // all online: each message owes members − 1
	o := run(t, withOptions(srv.Target(), map[string]any{"timeout": "1500ms"}), build(t, "acklate",
		`{"kind":"groups","groups":2,"members":6,"senders":1,"allOnline":true,"totalRate":40,"messages":16}`), 1, engine.Options{})
	late := int64(srv.Counter(t, LateAcksCounter))
	un, failed := verify.Sum(o.totals.Unanswered), verify.Sum(o.totals.SendFailed)
	if late == 0 || un != late || failed != 0 || verify.Sum(o.rec.OfUnanswered) != late*(members-1) ||
		verify.Sum(o.rec.Unexpected) != 0 || verify.Owed(o.rec.Lost) != 0 {
		t.Fatalf("target answered %d late; verifier: %d unanswered, %d failed, %v deliveries of unanswered (want %d), %v unexpected, %v lost",
			late, un, failed, o.rec.OfUnanswered, late*(members-1), o.rec.Unexpected, o.rec.Lost)
	}
}

func testDisconnect(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{DisconnectEvery: 150 * time.Millisecond, DisconnectCount: 2, Seed: 11})
	o := run(t, srv.Target(), build(t, "disc", integration), 2, engine.Options{ReconnectDelay: 100 * time.Millisecond})
	drops := int64(srv.Counter(t, DisconnectsCounter))
	// A connection the server dropped after taking its login but before the
	// client read the answer is, to the client, a login that failed (and
	// was tried again); every other is a disconnect.
	failed := verify.Causes(o.totals.LoginFailed)
	if drops == 0 || o.totals.Disconnects+failed != drops {
		t.Fatalf("target dropped %d connections, verifier counted %d disconnects and %d failed logins",
			drops, o.totals.Disconnects, failed)
	}
	if c := o.totals.Dropped; c[engine.DropServerClosed] != o.totals.Disconnects {
		t.Fatalf("%d disconnects, by cause %v: each was the server's close", o.totals.Disconnects, c)
	}
	// Drops while the sessions close are not followed by a reconnect.
	if o.totals.Reconnects == 0 || o.totals.Reconnects > drops {
		t.Fatalf("%d reconnects for %d drops", o.totals.Reconnects, drops)
	}
	// Messages in flight when a connection dropped may fail; what was acked
	// must all arrive.
	if verify.Sum(o.rec.Lost) != 0 {
		t.Fatalf("lost %v after reconnects; sample %+v", o.rec.Lost, o.rec.Sample)
	}
}

// Every connection dropped at once mid-send: one outage, every user in it
// back, the drops and reconnects counted as the target counts them, and
// every acknowledged message delivered (pulled where its push was lost).
func testStorm(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{})
	dropped := make(chan int, 1)
	p := build(t, "storm", `{"kind":"groups","groups":6,"members":8,"allOnline":true,"totalRate":100,"messages":30}`)
	o := runThen(t, srv.Target(), p, 2, engine.Options{ReconnectDelay: 100 * time.Millisecond, ReconnectCap: 400 * time.Millisecond},
		func() {
			time.Sleep(600 * time.Millisecond)
			dropped <- srv.DropAll()
		})
	n := int64(<-dropped)
	if n != int64(p.Users) || int64(srv.Counter(t, DisconnectsCounter)) != n || o.totals.Disconnects != n {
		t.Fatalf("storm dropped %d of %d users; target counted %v, verifier %d", n, p.Users, srv.Counter(t, DisconnectsCounter), o.totals.Disconnects)
	}
	if c := o.totals.Dropped; c[engine.DropServerClosed] != n {
		t.Fatalf("storm: %d drops, by cause %v: each was the server's close", n, c)
	}
	if len(o.outages) != 1 {
		t.Fatalf("%d outages for one storm: %+v", len(o.outages), o.outages)
	}
	w := o.outages[0]
	var perSec int64
	for _, c := range w.ReconnectsPerSecond {
		perSec += c
	}
	if w.Dropped != n || w.Reconnects != n || w.GaveUp != 0 || w.End.IsZero() || perSec != n || o.totals.Reconnects != n {
		t.Fatalf("outage %+v for %d drops (%d reconnects counted)", w, n, o.totals.Reconnects)
	}
	if exp := verify.Sum(o.totals.Expected); exp == 0 || verify.Sum(o.rec.Lost) != 0 {
		t.Fatalf("expected %d, lost %v after the storm; sample %+v", exp, o.rec.Lost, o.rec.Sample)
	}
	t.Logf("%d dropped, all back after %s", n, w.End.Sub(w.Start).Round(time.Millisecond))
}

// Heartbeats keep idle users online past the server's idle deadline; with
// heartbeats slower than it the server drops them and both sides count it.
// The deadline is 1 s here.
func testHeartbeats(t *testing.T, h Harness) {
	for _, c := range []struct {
		ping  time.Duration
		drops bool
	}{{300 * time.Millisecond, false}, {5 * time.Second, true}} {
		t.Run(fmt.Sprintf("pings every %s", c.ping), func(t *testing.T) {
			srv := h.Start(t, Faults{ReadTimeout: time.Second})
			p := build(t, "hb", `{"kind":"groups","groups":2,"members":6,"allOnline":true,"rate":1,"messages":1}`)
			d := driver(t, srv.Target(), p)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := d.Setup(ctx, func(string) {}); err != nil {
				t.Fatal(err)
			}
			sh := engine.NewShared("hb", p, d, engine.Options{PingInterval: c.ping, ReconnectMax: 1, ReconnectDelay: 10 * time.Second})
			s := sh.NewSession(ctx, 0, uint32(p.Users))
			if r := s.Login(plan.Immediate); r.Failed != 0 {
				t.Fatal(r.FirstErr)
			}
			time.Sleep(2500 * time.Millisecond)
			timeouts := int64(srv.Counter(t, HeartbeatTOsCounter))
			disc := s.Tally.Disconnects.Load()
			s.Close()
			if c.drops && (timeouts == 0 || disc != timeouts) {
				t.Fatalf("slow pings: server timed out %d connections, client saw %d disconnects", timeouts, disc)
			}
			if !c.drops && (timeouts != 0 || disc != 0 || s.Tally.HeartbeatsSent.Load() == 0) {
				t.Fatalf("pings every %s: %d server timeouts, %d disconnects, %d pings", c.ping, timeouts, disc, s.Tally.HeartbeatsSent.Load())
			}
		})
	}
}

// Idle users keeping alive as the vendor's SDK does (the protocol's
// Keepalive) stay online for three intervals against the reference
// target's default idle limit, with both clocks scaled so an interval is
// 2 s: neither side drops a connection, and every user pings each
// interval.
func testSDKKeepalive(t *testing.T, h Harness) {
	spec, err := engine.Lookup(h.System)
	if err != nil {
		t.Fatal(err)
	}
	k := spec.Keepalive
	if k.Every <= 0 || h.ServerIdle == nil {
		t.Fatalf("%s states no SDK keepalive (%s) or its server's idle limit", h.System, k.Every)
	}
	idle := h.ServerIdle(k)
	if k.Every > spec.PingLimit || idle <= k.Every {
		t.Fatalf("%s: pings every %s, limit %s, server idle %s", h.System, k.Every, spec.PingLimit, idle)
	}
	const every = 2 * time.Second
	scale := float64(k.Every) / float64(every)
	scaled := func(d time.Duration) time.Duration { return time.Duration(float64(d) / scale) }
	srv := h.Start(t, Faults{ReadTimeout: scaled(idle)})
	p := build(t, "keep", `{"kind":"groups","groups":2,"members":6,"allOnline":true,"rate":1,"messages":1}`)
	opts := engine.Options{PingInterval: every, PingAfterSilence: k.AfterSilence, ReadSlack: scaled(15 * time.Second), ReconnectMax: 1}
	opts.Defaults()
	d := driverReading(t, srv.Target(), p, opts.ReadTimeout())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := d.Setup(ctx, func(string) {}); err != nil {
		t.Fatal(err)
	}
	sh := engine.NewShared("keep", p, d, opts)
	s := sh.NewSession(ctx, 0, uint32(p.Users))
	if r := s.Login(plan.Immediate); r.Failed != 0 {
		t.Fatal(r.FirstErr)
	}
	time.Sleep(3*every + every/4)
	timeouts := int64(srv.Counter(t, HeartbeatTOsCounter))
	disc, pings := s.Tally.Disconnects.Load(), s.Tally.HeartbeatsSent.Load()
	s.Close()
	if timeouts != 0 || disc != 0 || pings < int64(3*p.Users) || pings > int64(4*p.Users) {
		t.Fatalf("%d idle users over 3 intervals of %s (SDK %s, server idle %s scaled): %d server timeouts, %d disconnects, %d pings",
			p.Users, every, k.Every, scaled(idle), timeouts, disc, pings)
	}
}

// A client never declares a live server dead: groups of 10 whose players
// log in at their times, half away for a spell, traffic over in 3 s, then
// quiet for twice the read timeout, with pings every 4 s and a read
// timeout 3 s longer. Nobody is dropped, whatever their last write: a
// ping skipped for a recent write (WuKongIM's) is skipped only while the
// next one's answer still comes in time.
func testQuietSpell(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{})
	var classes []string
	for _, at := range []string{"500ms", "1s", "1500ms", "2s"} {
		classes = append(classes, `{"kind":"groups","groups":2,"members":10,"senders":1,"allOnline":true,"loginAt":"`+at+
			`","loginAtShare":0.5,"away":[{"at":"4s","for":"1s","share":0.5}],"rate":2,"duration":"3s"}`)
	}
	p := build(t, "quiet", classes...)
	opts := engine.Options{PingInterval: 4 * time.Second, ReadSlack: 3 * time.Second}
	quiet := 2 * opts.ReadTimeout()
	o := runHooked(t, srv.Target(), p, 2, opts, hooks{sent: func() { time.Sleep(quiet) }}, false, false)
	tot := o.totals
	if tot.Disconnects != 0 || tot.Logouts == 0 || tot.LoginsBack != tot.Logouts || tot.LoginsTimed == 0 {
		t.Fatalf("%d disconnects %v over %s of quiet (%d logouts, %d back, %d timed logins, %d pings sent, %d skipped)",
			tot.Disconnects, tot.Dropped, quiet, tot.Logouts, tot.LoginsBack, tot.LoginsTimed, tot.HeartbeatsSent, tot.HeartbeatsSkipped)
	}
	if exp := verify.Sum(tot.Expected); exp == 0 || verify.Owed(o.rec.Lost) != 0 {
		t.Fatalf("expected %d, lost %v", exp, o.rec.Lost)
	}
}

// Users spread over gateway links: messages cross from one gateway through
// the core to another and still arrive exactly; faults injected in the core
// come out as exactly.
func testGateways(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{Gateways: 3})
	o := run(t, srv.Target(), build(t, "spread", mixed...), 2, engine.Options{})
	if exp := verify.Sum(o.totals.Expected); exp == 0 || verify.Sum(o.rec.Lost) != 0 || exp != o.received() {
		t.Fatalf("across gateways: expected %d, pushed %v pulled %v, lost %v", exp, o.totals.Pushed, o.totals.Pulled, o.rec.Lost)
	}
	srv = h.Start(t, Faults{Gateways: 3, Duplicate: 0.05, Seed: 12})
	o = run(t, srv.Target(), build(t, "spreaddup", integration), 2, engine.Options{})
	dup := int64(srv.Counter(t, DuplicatedCounter))
	if dup == 0 || verify.Sum(o.totals.Duplicates) != dup {
		t.Fatalf("duplicates across gateways: target %d, verifier %v", dup, o.totals.Duplicates)
	}
}
