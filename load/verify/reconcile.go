package verify

import (
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/plan"
)

// LostDelivery names one expected delivery that never arrived.
type LostDelivery = summary.LostDelivery

// Reconciliation is the end-of-test account of one process's users.
type Reconciliation struct {
	Matched    [Kinds]int64   // deliveries of acknowledged messages (or of senders in other processes)
	Unexpected [Kinds]int64   // deliveries of messages whose send was never acknowledged
	Lost       [Kinds]int64   // expected − matched
	Sample     []LostDelivery // some of the lost deliveries, when their senders are local
}

// Reconcile compares what the local receivers got with what was expected.
// expected comes from the senders' tallies: at each acknowledgement a sender
// adds the number of reachable recipients. A delivery counts as matched when
// its sender acknowledged it; senders in other processes (execution segments)
// are trusted, and the global figure is the sum over processes.
func Reconcile(p *plan.Plan, expected [Kinds]int64, inboxes map[uint32]*Inbox, outboxes map[uint32]*Outbox, sampleMax int) Reconciliation {
	var r Reconciliation
	for _, in := range inboxes {
		in.mu.Lock()
		for c, cv := range in.convs {
			if int(c) >= len(p.Convs) {
				continue
			}
			k := KindIndex(p.Convs[c].Kind)
			for s, si := range cv.from {
				got := si.got.len()
				ob := outboxes[s]
				if ob == nil {
					r.Matched[k] += int64(got)
					continue
				}
				ob.mu.Lock()
				acked := ob.acked[c]
				var both uint64
				if acked != nil {
					both = si.got.intersect(acked)
				}
				ob.mu.Unlock()
				r.Matched[k] += int64(both)
				r.Unexpected[k] += int64(got - both)
			}
		}
		in.mu.Unlock()
	}
	for k := range r.Lost {
		r.Lost[k] = expected[k] - r.Matched[k]
	}
	if Owed(r.Lost) > 0 && sampleMax > 0 {
		r.Sample = sampleLost(p, inboxes, outboxes, sampleMax)
	}
	return r
}

// sampleLost walks acknowledged messages of local senders and names
// deliveries to local receivers that are missing, up to max of them.
func sampleLost(p *plan.Plan, inboxes map[uint32]*Inbox, outboxes map[uint32]*Outbox, max int) []LostDelivery {
	var out []LostDelivery
	budget := 20_000_000 // checks; the sample is a debugging aid, not worth minutes
	for s, ob := range outboxes {
		ob.mu.Lock()
		acked := make(map[uint32]*seqSet, len(ob.acked))
		for c, set := range ob.acked {
			acked[c] = set
		}
		ob.mu.Unlock()
		for c, set := range acked {
			if p.Convs[c].Kind == plan.Room {
				continue // who was present is not known here; misses are a rate
			}
			members := p.Members(c)
			set.each(func(n uint64) bool {
				for _, r := range members {
					budget--
					if r == s || !p.Reachable(r) {
						continue
					}
					in := inboxes[r]
					if in == nil || in.Has(c, s, n) {
						continue
					}
					out = append(out, LostDelivery{Receiver: r, Sender: s, Conv: c, N: uint32(n)})
					if len(out) >= max {
						return false
					}
				}
				return budget > 0
			})
			if len(out) >= max || budget <= 0 {
				return out
			}
		}
	}
	return out
}
