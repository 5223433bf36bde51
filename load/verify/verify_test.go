package verify

import (
	"bytes"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/latency"
	"github.com/imbench/imbench/load/plan"
)

// A four-user plan: user 0 is friends with 1, 2 and 3 (conversations 0..2),
// one group holds users 0, 1, 2 (conversation grp); user 3 never logs in.
func tinyPlan(t *testing.T) *plan.Plan {
	t.Helper()
	p, err := plan.Integration{Name: "t", Users: 4, SuperUsers: 1, LargeGroups: 1, LargeGroupMembers: 3,
		LoginRatio: 0.5, SingleMessages: 3, GroupMessages: 3, Rate: 10}.Build()
	if err != nil {
		t.Fatal(err)
	}
	p.Login[3] = plan.Never
	if p.Convs[grp].Kind != plan.Group || p.Convs[0].Peers != [2]uint32{0, 1} {
		t.Fatalf("unexpected plan layout %+v", p.Convs)
	}
	return p
}

const grp = 3

type harness struct {
	t    *testing.T
	p    *plan.Plan
	ck   Checker
	tl   Tally
	in   *Inbox
	now  time.Time
	seqs map[uint32]uint64
}

func newHarness(t *testing.T, me uint32) *harness {
	p := tinyPlan(t)
	return &harness{t: t, p: p, ck: Checker{Run: []byte("r1"), Plan: p}, in: NewInbox(me),
		now: time.UnixMicro(1_700_000_000_000_000), seqs: map[uint32]uint64{}}
}

func (h *harness) text(sender, conv, n uint32) []byte {
	return AppendBody(nil, "r1", sender, conv, n, h.now.UnixMicro()-5000, 64)
}

func (h *harness) arrive(sender, conv, n uint32, seq uint64, pulled bool) Outcome {
	h.t.Helper()
	o, _ := h.ck.Receive(h.in, Arrival{Conv: conv, Seq: seq, Sender: int64(sender), Text: h.text(sender, conv, n),
		CreateMs: (h.now.UnixMicro() - 5000) / 1000, Pulled: pulled, GapFill: pulled}, h.now, &h.tl)
	return o
}

func TestBodyRoundTripAndCorruption(t *testing.T) {
	b := AppendBody(nil, "run-7", 12, 34, 56, 1_700_000_000_123_456, 700)
	if len(b) != 700 {
		t.Fatalf("body is %d bytes, want the requested 700", len(b))
	}
	got, err := ParseBody(b)
	if err != nil || string(got.Run) != RunTag("run-7") || string(got.Run) == RunTag("run-8") || got.Sender != 12 || got.Conv != 34 || got.N != 56 ||
		got.CreateUs != 1_700_000_000_123_456 {
		t.Fatalf("parse: %+v %v", got, err)
	}
	for i := range b {
		c := bytes.Clone(b)
		c[i] ^= 0x01
		if _, err := ParseBody(c); err == nil {
			t.Fatalf("a flipped bit at byte %d went unnoticed", i)
		}
	}
	if _, err := ParseBody([]byte("hello")); err != ErrForeign {
		t.Fatalf("plain text: %v", err)
	}
}

func TestDeliveriesDuplicatesAndOrder(t *testing.T) {
	h := newHarness(t, 1)
	if o := h.arrive(0, 0, 1, 1, false); o != Delivered {
		t.Fatalf("first: %v", o)
	}
	if o := h.arrive(0, 0, 3, 3, false); o != Delivered {
		t.Fatalf("n=3: %v", o)
	}
	if o := h.arrive(0, 0, 2, 2, false); o != OutOfOrder {
		t.Fatalf("n=2 after n=3: %v", o)
	}
	if o := h.arrive(0, 0, 2, 2, false); o != Duplicate {
		t.Fatalf("n=2 again: %v", o)
	}
	if o := h.arrive(0, 0, 2, 2, true); o != Overlap {
		t.Fatalf("pulled copy: %v", o)
	}
	if o := h.arrive(1, 0, 1, 4, false); o != Self {
		t.Fatalf("own message: %v", o)
	}
	k := KindIndex(plan.Single)
	if h.tl.Pushed[k].Load() != 3 || h.tl.Duplicates[k].Load() != 1 || h.tl.OutOfOrder[k].Load() != 1 ||
		h.tl.Overlap.Load() != 1 {
		t.Fatalf("counts pushed %d dup %d ooo %d overlap %d", h.tl.Pushed[k].Load(), h.tl.Duplicates[k].Load(),
			h.tl.OutOfOrder[k].Load(), h.tl.Overlap.Load())
	}
	var hist latency.Histogram = *latency.NewHistogram()
	h.tl.E2E[k].MergeInto(&hist)
	if hist.Count() != 3 || hist.MeanMs() != 5 {
		t.Fatalf("latency count %d mean %v, want 3 at 5 ms", hist.Count(), hist.MeanMs())
	}
}

func TestSeqGapsAndSync(t *testing.T) {
	h := newHarness(t, 2)
	h.arrive(0, grp, 1, 1, false)
	h.arrive(1, grp, 1, 4, false) // seqs 2 and 3 skipped by the server's push
	if g := h.in.Gaps(grp, 10); len(g) != 2 || g[0] != 2 || g[1] != 3 {
		t.Fatalf("gaps %v, want [2 3]", g)
	}
	h.arrive(0, grp, 2, 2, true)
	h.arrive(1, grp, 2, 3, false) // a push that was merely late fills the rest
	if g := h.in.Gaps(grp, 10); len(g) != 0 {
		t.Fatalf("gaps after fill: %v", g)
	}
	k := KindIndex(plan.Group)
	if h.tl.Pulled[k].Load() != 1 || h.tl.GapPulled[k].Load() != 1 || h.tl.Pushed[k].Load() != 3 {
		t.Fatalf("pulled %d pushed %d", h.tl.Pulled[k].Load(), h.tl.Pushed[k].Load())
	}
	// A late login knows nothing: everything up to the server's max is missing.
	late := NewInbox(3)
	if m := late.MissingUpTo(grp, 5, 100); len(m) != 5 {
		t.Fatalf("late login missing %v", m)
	}
	// A reconnect only misses what came after its last seq.
	if m := h.in.MissingUpTo(grp, 6, 100); len(m) != 2 || m[0] != 5 {
		t.Fatalf("reconnect missing %v, want [5 6]", m)
	}
}

// A sender's own message is acknowledged with its seq and pushed to the
// others only: that seq is no gap, and no sync pulls it.
func TestOwnSeqIsNoGap(t *testing.T) {
	h := newHarness(t, 2)
	h.arrive(0, grp, 1, 1, false)
	h.in.Own(grp, 2)
	if _, gap := h.ck.Receive(h.in, Arrival{Conv: grp, Seq: 3, Sender: 1, Text: h.text(1, grp, 1), CreateMs: (h.now.UnixMicro() - 5000) / 1000}, h.now, &h.tl); gap {
		t.Fatal("the own seq between two arrivals was taken for a gap")
	}
	h.in.Own(grp, 4)
	if g, m := h.in.Gaps(grp, 10), h.in.MissingUpTo(grp, 4, 10); len(g)+len(m) != 0 {
		t.Fatalf("gaps %v, missing %v", g, m)
	}
	if got := h.in.MaxSeqs()[grp]; got != 4 {
		t.Fatalf("newest seq %d, want the own 4", got)
	}
}

func TestForeignAndCorruptArrivals(t *testing.T) {
	h := newHarness(t, 1)
	other := AppendBody(nil, "other-run", 0, 0, 1, h.now.UnixMicro(), 0)
	cases := []struct {
		name string
		a    Arrival
		want Outcome
	}{
		{"plain text", Arrival{Conv: 0, Seq: 1, Sender: 0, Text: []byte("hi")}, Foreign},
		{"another run", Arrival{Conv: 0, Seq: 2, Sender: 0, Text: other, CreateMs: h.now.UnixMilli()}, Foreign},
		{"wrong conversation", Arrival{Conv: grp, Seq: 1, Sender: 0, Text: h.text(0, 0, 1), CreateMs: (h.now.UnixMicro() - 5000) / 1000}, Corrupt},
		{"wrong sender", Arrival{Conv: 0, Seq: 3, Sender: 2, Text: h.text(0, 0, 1), CreateMs: (h.now.UnixMicro() - 5000) / 1000}, Corrupt},
		{"altered create time", Arrival{Conv: 0, Seq: 4, Sender: 0, Text: h.text(0, 0, 1), CreateMs: 1}, Corrupt},
	}
	for _, c := range cases {
		if got, _ := h.ck.Receive(h.in, c.a, h.now, &h.tl); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if h.tl.Foreign.Load() != 2 || h.tl.Corrupt.Load() != 3 {
		t.Fatalf("foreign %d corrupt %d", h.tl.Foreign.Load(), h.tl.Corrupt.Load())
	}
	// Their seqs still count as seen, so no gap pull chases them.
	if g := h.in.Gaps(0, 10); len(g) != 0 {
		t.Fatalf("gaps %v", g)
	}
}

func TestReconcileCountsLossExactly(t *testing.T) {
	h := newHarness(t, 1)
	p := h.p
	// Sender 0 sends n=1..3 to friend 1 (conv 0) and to the group (recipients
	// 1 and 2). n=3 of the group message is never acknowledged.
	out := map[uint32]*Outbox{0: NewOutbox()}
	var expected [Kinds]int64
	for n := uint32(1); n <= 3; n++ {
		out[0].Ack(0, n)
		expected[0] += int64(p.ExpectedRecipients(plan.Msg{Sender: 0, Conv: 0, N: n}))
		if n < 3 {
			out[0].Ack(grp, n)
			expected[1] += int64(p.ExpectedRecipients(plan.Msg{Sender: 0, Conv: grp, N: n}))
		}
	}
	if expected != [Kinds]int64{3, 4} {
		t.Fatalf("expected %v", expected)
	}
	r1, r2 := NewInbox(1), NewInbox(2)
	recv := func(in *Inbox, conv, n uint32) {
		h.ck.Receive(in, Arrival{Conv: conv, Sender: 0, Text: h.text(0, conv, n), CreateMs: (h.now.UnixMicro() - 5000) / 1000}, h.now, &h.tl)
	}
	recv(r1, 0, 1)
	recv(r1, 0, 3) // n=2 lost on the way to user 1
	recv(r1, grp, 1)
	recv(r1, grp, 2)
	recv(r2, grp, 1) // n=2 lost on the way to user 2
	recv(r2, grp, 3) // delivered although never acknowledged
	rec := Reconcile(p, expected, map[uint32]*Inbox{1: r1, 2: r2}, out, 10)
	if rec.Lost != [Kinds]int64{1, 1} || rec.Unexpected != [Kinds]int64{0, 1} || rec.Matched != [Kinds]int64{2, 3} {
		t.Fatalf("reconcile %+v", rec)
	}
	want := map[LostDelivery]bool{{Receiver: 1, Sender: 0, Conv: 0, N: 2}: true, {Receiver: 2, Sender: 0, Conv: grp, N: 2}: true}
	if len(rec.Sample) != 2 || !want[rec.Sample[0]] || !want[rec.Sample[1]] {
		t.Fatalf("sample %+v", rec.Sample)
	}
	// A sender in another process is trusted: its deliveries all match.
	rec = Reconcile(p, expected, map[uint32]*Inbox{1: r1, 2: r2}, nil, 10)
	if rec.Matched != [Kinds]int64{2, 4} || rec.Unexpected != [Kinds]int64{} {
		t.Fatalf("remote senders %+v", rec)
	}
}

// A delivery of a send that got no answer in time is neither matched nor
// unexpected: it is counted apart, and a send neither acknowledged nor
// unanswered (refused) stays unexpected.
func TestReconcileCountsDeliveriesOfUnansweredSends(t *testing.T) {
	h := newHarness(t, 1)
	out := map[uint32]*Outbox{0: NewOutbox()}
	out[0].Ack(grp, 1)
	out[0].Unanswered(grp, 2)
	out[0].Unanswered(grp, 4)
	var expected [Kinds]int64
	expected[1] = int64(h.p.ExpectedRecipients(plan.Msg{Sender: 0, Conv: grp, N: 1}))
	r1, r2 := NewInbox(1), NewInbox(2)
	for _, in := range []*Inbox{r1, r2} {
		for _, n := range []uint32{1, 2, 3} { // n=3 was refused, n=4 never came
			h.ck.Receive(in, Arrival{Conv: grp, Sender: 0, Text: h.text(0, grp, n), CreateMs: (h.now.UnixMicro() - 5000) / 1000}, h.now, &h.tl)
		}
	}
	h.p.Watching = make([]bool, h.p.Users)
	h.p.Watching[2] = true // user 2 watches: it is owed n=1 only, and received n=1 only of what was acknowledged
	rec := Reconcile(h.p, expected, map[uint32]*Inbox{1: r1, 2: r2}, out, 10)
	if rec.Matched != [Kinds]int64{0, 2} || rec.OfUnanswered != [Kinds]int64{0, 2} || rec.Unexpected != [Kinds]int64{0, 2} || rec.Lost != [Kinds]int64{} {
		t.Fatalf("reconcile %+v", rec)
	}
	if rec.WatchMatched != 1 {
		t.Fatalf("the watcher received %d acknowledged messages, not 1 (its three deliveries counted?)", rec.WatchMatched)
	}
}

func TestSeqSet(t *testing.T) {
	var a, b seqSet
	for _, x := range []uint64{1, 2, 5, 3, 9, 7} {
		if !a.add(x) {
			t.Fatalf("add %d", x)
		}
	}
	if a.add(5) || a.upTo != 3 || a.len() != 6 {
		t.Fatalf("set %+v", a)
	}
	if m := a.missing(9, 10); len(m) != 3 || m[0] != 4 || m[1] != 6 || m[2] != 8 {
		t.Fatalf("missing %v", m)
	}
	for _, x := range []uint64{1, 2, 3, 4, 5, 6, 9} {
		b.add(x)
	}
	if n := a.intersect(&b); n != 5 { // 1 2 3 5 9
		t.Fatalf("intersect %d", n)
	}
	if n := b.intersect(&a); n != 5 {
		t.Fatalf("intersect reversed %d", n)
	}
	a.add(4)
	a.add(6)
	a.add(8)
	if a.upTo != 9 || a.above != nil {
		t.Fatalf("should have collapsed: %+v", a)
	}
}

// A chatroom message sent before the receiver joined is neither a delivery
// nor expected; one sent after is a delivery like any other.
func TestChatroomMessagesBeforeTheJoinDoNotCount(t *testing.T) {
	w := plan.Workload{Name: "t", Classes: nil}
	w.Classes = append(w.Classes, []byte(`{"kind":"chatroom","members":3,"rate":1,"messages":2}`))
	p, err := w.Build()
	if err != nil {
		t.Fatal(err)
	}
	ck := Checker{Run: []byte("r1"), Plan: p}
	in, tl := NewInbox(1), &Tally{}
	arrive := func(n uint32, createUs int64) Outcome {
		text := AppendBody(nil, "r1", 0, 0, n, createUs, 64)
		o, _ := ck.Receive(in, Arrival{Conv: 0, Seq: uint64(n), Sender: 0, Text: text, CreateMs: createUs / 1000}, time.UnixMicro(createUs+1000), tl)
		return o
	}
	if o := arrive(1, time.Now().UnixMicro()); o != BeforeJoin {
		t.Fatalf("before any join: %v", o)
	}
	var created int64
	in.Join(0, func(at int64) { created = at })
	in.Join(0, func(int64) { t.Fatal("only the first join counts") })
	if created == 0 {
		t.Fatal("the first join was not reported")
	}
	if o := arrive(2, created-5); o != BeforeJoin {
		t.Fatalf("sent before the join: %v", o)
	}
	if o := arrive(3, created); o != Delivered || tl.Pushed[RoomIndex].Load() != 1 || tl.BeforeJoin.Load() != 2 {
		t.Fatalf("after the join: %v, pushed %d, before join %d", o, tl.Pushed[RoomIndex].Load(), tl.BeforeJoin.Load())
	}
}
