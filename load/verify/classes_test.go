package verify

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/imbench/imbench/load/plan"
)

// Closed pairs (1 and 16 in flight, as wukongim/ordering), an open
// integration class (a sender's queue of several conversations), open
// groups with turn-taking senders and a chatroom.
var classesUnderTest = []string{
	`{"kind":"pairs","pairs":2,"allOnline":true,"inFlight":1,"messages":3}`,
	`{"kind":"pairs","pairs":3,"allOnline":true,"inFlight":16,"messages":3}`,
	`{"kind":"integration","users":6,"superUsers":1,"largeGroups":1,"largeGroupMembers":4,"commonGroups":1,"commonGroupMembers":3,"loginRatio":1,"singleMessages":2,"groupMessages":2,"rate":10}`,
	`{"kind":"groups","groups":2,"members":5,"senders":3,"rate":1,"messages":2}`,
	`{"kind":"chatroom","members":4,"senders":2,"rate":1,"messages":2}`,
}

func buildClasses(t *testing.T, classes ...string) *plan.Plan {
	t.Helper()
	w := plan.Workload{Name: "t", RunID: "r1"}
	for _, c := range classes {
		w.Classes = append(w.Classes, json.RawMessage(c))
	}
	p, err := w.Build()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Each class builds its conversations after the ones before it: built
// alone, a class has as many as it owns in the whole plan, in order.
func TestEveryConversationKnowsItsClass(t *testing.T) {
	p := buildClasses(t, classesUnderTest...)
	ck := Checker{Run: []byte("r1"), Plan: p}
	first := 0
	for cls, raw := range classesUnderTest {
		n := len(buildClasses(t, raw).Convs)
		if n == 0 {
			t.Fatalf("class %d has no conversation", cls)
		}
		for c := first; c < first+n; c++ {
			if got := ck.ClassOf(uint32(c)); got != cls {
				t.Errorf("conversation %d (%s): class %d, want %d", c, p.Convs[c].Kind, got, cls)
			}
		}
		first += n
	}
	if first != len(p.Convs) {
		t.Fatalf("classes built alone have %d conversations, the plan %d", first, len(p.Convs))
	}
}

// Out of order and duplicates count in the class of their conversation,
// and the VUs' tallies add up.
func TestArrivalsCountByClass(t *testing.T) {
	p := buildClasses(t, classesUnderTest[0], classesUnderTest[1])
	ck := Checker{Run: []byte("r1"), Plan: p}
	// Users 0, 1 send to 2, 3 (class 0); users 4..6 to 7..9 (class 1).
	convOf := func(a, b uint32) uint32 {
		c, ok := p.SingleConv(a, b)
		if !ok {
			t.Fatalf("users %d and %d are no pair", a, b)
		}
		return c
	}
	now := time.UnixMicro(1_700_000_000_000_000)
	arrive := func(tl *Tally, in *Inbox, sender, conv, n uint32) Outcome {
		text := AppendBody(nil, "r1", sender, conv, n, now.UnixMicro()-1000, 64)
		o, _ := ck.Receive(in, Arrival{Conv: conv, Seq: uint64(n), Sender: int64(sender), Text: text,
			CreateMs: (now.UnixMicro() - 1000) / 1000}, now, tl)
		return o
	}
	var vu1, vu2 Tally
	r2, r3, r7, r8 := NewInbox(2), NewInbox(3), NewInbox(7), NewInbox(8)
	for n := uint32(1); n <= 3; n++ { // class 0: in order
		arrive(&vu1, r2, 0, convOf(0, 2), n)
		arrive(&vu1, r3, 1, convOf(1, 3), n)
	}
	for _, n := range []uint32{2, 1, 3} { // class 1: one out of order, then a duplicate
		arrive(&vu2, r7, 4, convOf(4, 7), n)
	}
	if o := arrive(&vu2, r7, 4, convOf(4, 7), 3); o != Duplicate {
		t.Fatalf("again: %v", o)
	}
	for _, n := range []uint32{3, 2, 1} { // two out of order
		arrive(&vu2, r8, 5, convOf(5, 8), n)
	}
	var tot Totals
	tot.Add(&vu1)
	tot.Add(&vu2)
	want := []ClassTotals{{Received: 6}, {Received: 6, OutOfOrder: 3, Duplicates: 1}}
	if len(tot.ByClass) != 2 || tot.ByClass[0] != want[0] || tot.ByClass[1] != want[1] {
		t.Fatalf("by class %+v, want %+v", tot.ByClass, want)
	}
	if Sum(tot.OutOfOrder) != 3 || Sum(tot.Duplicates) != 1 {
		t.Fatalf("by kind: out of order %v, duplicates %v", tot.OutOfOrder, tot.Duplicates)
	}
}

// A plan of one class needs no map: every conversation is class 0.
func TestOneClassIsClassZero(t *testing.T) {
	p := buildClasses(t, classesUnderTest[2])
	ck := Checker{Run: []byte("r1"), Plan: p}
	for c := range p.Convs {
		if ck.ClassOf(uint32(c)) != 0 {
			t.Fatalf("conversation %d: class %d", c, ck.ClassOf(uint32(c)))
		}
	}
}
