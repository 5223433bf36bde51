package verify

import (
	"sync/atomic"

	"github.com/imbench/imbench/load/plan"
)

// ClassCounts counts the arrivals of one workload class: how its senders
// pace (one message in flight, or many) decides what order the server
// keeps, so duplicates and order are told apart by class.
// The same counts serve the plan's populations, by receiver.
type ClassCounts struct {
	Expected, Received, Duplicates, OutOfOrder atomic.Int64
}

// ClassTotals is ClassCounts summed over VUs.
type ClassTotals struct {
	Expected, Received, Duplicates, OutOfOrder int64
}

// add folds c into t.
func (t *ClassTotals) add(c *ClassCounts) {
	t.Expected += c.Expected.Load()
	t.Received += c.Received.Load()
	t.Duplicates += c.Duplicates.Load()
	t.OutOfOrder += c.OutOfOrder.Load()
}

// byClass is a tally's per-class counters, made at its first count: the
// number of classes is the plan's.
type byClass struct{ p atomic.Pointer[[]ClassCounts] }

func (b *byClass) counts(n int) []ClassCounts {
	if s := b.p.Load(); s != nil {
		return *s
	}
	s := make([]ClassCounts, n)
	if b.p.CompareAndSwap(nil, &s) {
		return s
	}
	return *b.p.Load()
}

// load is the counters, nil before the first count.
func (b *byClass) load() []ClassCounts {
	if s := b.p.Load(); s != nil {
		return *s
	}
	return nil
}

// ByClass is the tally's counters by workload class (nil before any
// arrival was counted).
func (t *Tally) ByClass() []ClassCounts { return t.byClass.load() }

// ByPopulation is the tally's counters by the receiver's population (nil
// before any was counted).
func (t *Tally) ByPopulation() []ClassCounts { return t.byPop.load() }

// AddExpected counts the deliveries of acknowledged message m its class and
// the receivers' populations are owed.
func (ck *Checker) AddExpected(t *Tally, m plan.Msg, n int64) {
	ck.classCounts(t, m.Conv).Expected.Add(n)
	ck.Plan.ExpectedByPopulation(m, func(k int, n int64) {
		t.byPop.counts(len(ck.Plan.Populations))[k].Expected.Add(n)
	})
}

// popCounts is the counters of user u's population in t, nil for a user of
// a class's own.
func (ck *Checker) popCounts(t *Tally, u uint32) *ClassCounts {
	k := ck.Plan.PopulationOf(u)
	if k < 0 {
		return nil
	}
	return &t.byPop.counts(len(ck.Plan.Populations))[k]
}

// ClassOf is the workload class (index into p.Streams) of conversation c.
func (ck *Checker) ClassOf(c uint32) int {
	if int(c) < len(ck.Plan.Convs) {
		return int(ck.Plan.Convs[c].Class)
	}
	return 0
}

// classCounts is the counters of conversation c's class in t.
func (ck *Checker) classCounts(t *Tally, c uint32) *ClassCounts {
	return &t.byClass.counts(max(len(ck.Plan.Streams), 1))[ck.ClassOf(c)]
}
