package verify

import (
	"sync/atomic"

	"github.com/imbench/imbench/load/plan"
)

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
	ck.classOnce.Do(func() { ck.classOf = convClasses(ck.Plan) })
	if int(c) < len(ck.classOf) {
		return int(ck.classOf[c])
	}
	return 0
}

// classCounts is the counters of conversation c's class in t.
func (ck *Checker) classCounts(t *Tally, c uint32) *ClassCounts {
	cls := ck.ClassOf(c)
	return &t.byClass.counts(max(len(ck.Plan.Streams), 1))[cls]
}

// convClasses maps every conversation of p to its workload class: p.Streams
// holds one stream per class, in the workload's order. Each class's first
// messages name its conversations and senders (a sender's first round, up
// to the first message numbered 2: no more than one message per sender and
// conversation); a conversation they do not name (the later ones of an
// integration sender's queue) belongs to the class of a member who sends.
// A conversation nobody sends in gets no message: its class is moot.
func convClasses(p *plan.Plan) []uint16 {
	out := make([]uint16, len(p.Convs))
	if len(p.Streams) <= 1 {
		return out
	}
	named := make([]bool, len(p.Convs))
	userClass := make([]int32, p.Users)
	for u := range userClass {
		userClass[u] = -1
	}
	mark := func(m plan.Msg, cls int) {
		out[m.Conv], named[m.Conv] = uint16(cls), true
		userClass[m.Sender] = int32(cls)
	}
	for cls, st := range p.Streams {
		if st.Open() {
			for m := range st.Messages() {
				if m.N > 1 {
					break
				}
				mark(m, cls)
			}
			continue
		}
		for u := range uint32(p.Users) {
			if userClass[u] >= 0 {
				continue // a user sends in one class only
			}
			cur, ok := st.Cursor(u)
			if !ok {
				continue
			}
			for m, more := cur.Next(); more && m.N == 1; m, more = cur.Next() {
				mark(m, cls)
			}
		}
	}
	for c := range p.Convs {
		if named[c] {
			continue
		}
		for _, u := range p.Members(uint32(c)) {
			if userClass[u] >= 0 {
				out[c] = uint16(userClass[u])
				break
			}
		}
	}
	return out
}
