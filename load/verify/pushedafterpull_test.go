package verify

import (
	"math/rand/v2"
	"testing"

	"github.com/imbench/imbench/load/plan"
)

// A push of a message the user already pulled is the client's own pull
// meeting a late push: counted apart, once; a second push of it, or a
// second push of a pushed one, is the server delivering twice.
func TestPushAfterPullIsNoDuplicate(t *testing.T) {
	h := newHarness(t, 1)
	k := KindIndex(plan.Single)
	steps := []struct {
		n      uint32
		pulled bool
		want   Outcome
	}{
		{1, false, Delivered},
		{3, false, Delivered},
		{2, true, Delivered},        // the gap pull
		{2, false, PushedAfterPull}, // the late push
		{2, false, Duplicate},       // and once more: twice delivered
		{3, false, Duplicate},       // pushed twice
		{4, true, Delivered},        // a sync's pull
		{4, true, Overlap},          // pulled again: the sync's overlap
		{4, false, PushedAfterPull}, // its push came after
		{5, false, Delivered},
	}
	for i, s := range steps {
		if o := h.arrive(0, 0, s.n, uint64(s.n), s.pulled); o != s.want {
			t.Fatalf("step %d (n=%d, pulled %v): %v, want %v", i, s.n, s.pulled, o, s.want)
		}
	}
	// Without a seq (a protocol whose every copy is an entry of its own, as
	// Wildfire's feeds are), a second copy is a second filing: a duplicate.
	for _, pulled := range []bool{true, false} {
		h.ck.Receive(h.in, Arrival{Conv: 0, Sender: 0, Text: h.text(0, 0, 6), CreateMs: (h.now.UnixMicro() - 5000) / 1000,
			Pulled: pulled}, h.now, &h.tl)
	}
	if h.tl.PushedAfterPull[k].Load() != 2 || h.tl.Duplicates[k].Load() != 3 || h.tl.OutOfOrder[k].Load() != 0 ||
		h.tl.Pulled[k].Load() != 3 || h.tl.Pushed[k].Load() != 3 || h.tl.Overlap.Load() != 1 {
		t.Fatalf("pushed after pull %d, duplicates %d, out of order %d, pulled %d, pushed %d, overlap %d",
			h.tl.PushedAfterPull[k].Load(), h.tl.Duplicates[k].Load(), h.tl.OutOfOrder[k].Load(),
			h.tl.Pulled[k].Load(), h.tl.Pushed[k].Load(), h.tl.Overlap.Load())
	}
}

func TestRangeSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 200; round++ {
		var s rangeSet
		in := map[uint64]bool{}
		for range rng.IntN(60) {
			x := 1 + rng.Uint64N(40)
			s.add(x)
			in[x] = true
		}
		for x := uint64(0); x <= 42; x++ {
			if s.has(x) != in[x] {
				t.Fatalf("round %d: has(%d) = %v, want %v (ranges %v)", round, x, s.has(x), in[x], s.r)
			}
		}
		for i, r := range s.r {
			if r[0] > r[1] || (i > 0 && s.r[i-1][1]+1 >= r[0]) {
				t.Fatalf("round %d: ranges %v not sorted, disjoint and apart", round, s.r)
			}
		}
	}
	var s rangeSet
	for x := uint64(1); x <= 10000; x++ {
		s.add(x)
	}
	if len(s.r) != 1 {
		t.Fatalf("a contiguous catch-up takes %d ranges", len(s.r))
	}
}

// A user due to log in that never got online is owed nothing the server
// could have delivered: its deliveries are not attempted, not lost, and
// the lost sample does not name them.
func TestReconcileSeparatesUsersNeverOnline(t *testing.T) {
	h := newHarness(t, 1)
	p := h.p
	out := map[uint32]*Outbox{0: NewOutbox(), 1: NewOutbox(), 2: NewOutbox()}
	var expected [Kinds]int64
	for n := uint32(1); n <= 3; n++ {
		out[0].Ack(0, n)   // to friend 1
		out[0].Ack(1, n)   // to friend 2
		out[0].Ack(grp, n) // to the group: 1 and 2
		for _, c := range []uint32{0, 1, grp} {
			expected[KindIndex(p.Convs[c].Kind)] += int64(p.ExpectedRecipients(plan.Msg{Sender: 0, Conv: c, N: n}))
		}
	}
	r1, r2 := NewInbox(1), NewInbox(2)
	r2.SetNeverOnline()
	for n := uint32(1); n <= 3; n++ {
		for _, c := range []uint32{0, grp} {
			if n == 3 && c == grp {
				continue // lost on the way to user 1
			}
			h.ck.Receive(r1, Arrival{Conv: c, Sender: 0, Text: h.text(0, c, n), CreateMs: (h.now.UnixMicro() - 5000) / 1000}, h.now, &h.tl)
		}
	}
	rec := Reconcile(p, expected, map[uint32]*Inbox{1: r1, 2: r2}, out, 10)
	// User 2 was owed 3 in its pair and 3 in the group.
	if rec.NeverOnline != 1 || rec.NotAttempted != [Kinds]int64{3, 3} || rec.Lost != [Kinds]int64{0, 1} || rec.NotAttemptedPartial {
		t.Fatalf("never online %d, not attempted %v, lost %v, partial %v", rec.NeverOnline, rec.NotAttempted, rec.Lost, rec.NotAttemptedPartial)
	}
	if len(rec.Sample) != 1 || rec.Sample[0] != (LostDelivery{Receiver: 1, Sender: 0, Conv: grp, N: 3}) {
		t.Fatalf("sample %+v", rec.Sample)
	}
	// Its peer's messages are known only where the peer is held.
	rec = Reconcile(p, expected, map[uint32]*Inbox{1: r1, 2: r2}, map[uint32]*Outbox{1: out[1], 2: out[2]}, 0)
	if !rec.NotAttemptedPartial || rec.NotAttempted != [Kinds]int64{} {
		t.Fatalf("with the sender elsewhere: not attempted %v, partial %v", rec.NotAttempted, rec.NotAttemptedPartial)
	}
}
