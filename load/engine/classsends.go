package engine

import (
	"sync/atomic"
	"time"
)

// ClassSent is what one workload class sent in this process: the pace
// check judges each open class by its own sends, a closed class beside it
// by its finish.
type ClassSent struct {
	Sent, Unsent int64
	First, Last  time.Time // its first and last send (zero: none)
	// MaxInFlight is the most messages a sender had unanswered, this one
	// included, when it sent one of the class's.
	MaxInFlight int64
}

type classCounter struct{ sent, unsent, firstNs, lastNs, inFlight atomic.Int64 }

func (c *classCounter) add(now time.Time, inFlight int64) {
	c.sent.Add(1)
	for m := c.inFlight.Load(); inFlight > m && !c.inFlight.CompareAndSwap(m, inFlight); m = c.inFlight.Load() {
	}
	ns := now.UnixNano()
	for f := c.firstNs.Load(); (f == 0 || ns < f) && !c.firstNs.CompareAndSwap(f, ns); f = c.firstNs.Load() {
	}
	for l := c.lastNs.Load(); ns > l && !c.lastNs.CompareAndSwap(l, ns); l = c.lastNs.Load() {
	}
}

// classCounter is class i's counters (nil for a class the plan has not).
func (sh *Shared) classCounter(i int) *classCounter {
	if i < len(sh.classes) {
		return &sh.classes[i]
	}
	return nil
}

// ClassSends is what each class of the plan sent, by its index.
func (sh *Shared) ClassSends() []ClassSent {
	out := make([]ClassSent, len(sh.classes))
	for i := range sh.classes {
		c := &sh.classes[i]
		out[i] = ClassSent{Sent: c.sent.Load(), Unsent: c.unsent.Load(), MaxInFlight: c.inFlight.Load()}
		if f := c.firstNs.Load(); f != 0 {
			out[i].First, out[i].Last = time.Unix(0, f), time.Unix(0, c.lastNs.Load())
		}
	}
	return out
}
