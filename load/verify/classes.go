package verify

import "sync/atomic"

// ClassCounts counts the arrivals of one workload class: how its senders
// pace (one message in flight, or many) decides what order the server
// keeps, so duplicates and order are told apart by class.
type ClassCounts struct {
	Received, Duplicates, OutOfOrder atomic.Int64
}

// ClassTotals is ClassCounts summed over VUs.
type ClassTotals struct {
	Received, Duplicates, OutOfOrder int64
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
