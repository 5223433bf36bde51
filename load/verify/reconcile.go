package verify

import (
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/plan"
)

// LostDelivery names one expected delivery that never arrived.
type LostDelivery = summary.LostDelivery

// Reconciliation is the end-of-test account of one process's users.
type Reconciliation struct {
	Matched    [Kinds]int64 // deliveries of acknowledged messages (or of senders in other processes)
	Unexpected [Kinds]int64 // deliveries of messages whose send was never acknowledged
	// OfUnanswered are deliveries of messages whose send got no answer
	// within the timeout (Outbox.Unanswered): the server stored them and
	// answered late or never. Neither expected nor unexpected.
	OfUnanswered [Kinds]int64
	// NotAttempted are the expected deliveries to users who were due to log
	// in and never got online (Inbox.SetNeverOnline): acknowledged messages
	// of their conversations, of senders in this process. The server was
	// never given the chance to deliver them: not lost.
	NotAttempted [Kinds]int64
	NeverOnline  int          // such users
	Lost         [Kinds]int64 // expected − matched − not attempted − late − unchecked
	// Late, NeverStored and Unchecked come from the store check after the
	// drain (engine.CheckStore): owed deliveries whose message the server
	// holds (late: not delivered within the drain; not in Lost), those of
	// Lost whose message it does not (acknowledged, never stored), and
	// those whose read the server did not answer (unchecked: not in Lost,
	// for nobody knows whether the server holds them).
	Late, NeverStored, Unchecked [Kinds]int64
	Sample                       []LostDelivery // some of the lost deliveries, when their senders are local
	// NotAttemptedPartial is set when a user never online shares a
	// conversation with a member held by another process (a split run):
	// what that member's messages owed it is not known here and stays in
	// Lost.
	NotAttemptedPartial bool
	// WatchMatched are the watchers' deliveries of acknowledged messages:
	// counted on the same messages as what they were owed (Tally's
	// WatchExpected), which an unanswered send's delivery is not.
	WatchMatched int64
}

// Reconcile compares what the local receivers got with what was expected.
// expected comes from the senders' tallies: at each acknowledgement a sender
// adds the number of reachable recipients. A delivery counts as matched when
// its sender acknowledged it; senders in other processes (execution segments)
// are trusted, and the global figure is the sum over processes.
func Reconcile(p *plan.Plan, expected [Kinds]int64, inboxes map[uint32]*Inbox, outboxes map[uint32]*Outbox, sampleMax int) Reconciliation {
	var r Reconciliation
	never := map[uint32]bool{}
	for u, in := range inboxes {
		if in.NeverOnline() && p.Reachable(u) {
			never[u] = true
		}
	}
	r.NeverOnline = len(never)
	if len(never) > 0 {
		r.NotAttempted, r.NotAttemptedPartial = notAttempted(p, never, outboxes)
	}
	for u, in := range inboxes {
		watcher := p.IsWatcher(u)
		in.mu.Lock()
		for c, cv := range in.convs {
			if int(c) >= len(p.Convs) {
				continue
			}
			k := KindIndex(p.Convs[c].Kind)
			for s, si := range cv.from.all() {
				got := si.got.len()
				ob := outboxes[s]
				if ob == nil {
					r.Matched[k] += int64(got)
					if watcher {
						r.WatchMatched += int64(got)
					}
					continue
				}
				ob.mu.Lock()
				var both, late uint64
				if acked := ob.acked[c]; acked != nil {
					both = si.got.intersect(acked)
				}
				if un := ob.unanswered[c]; un != nil {
					late = si.got.intersect(un)
				}
				ob.mu.Unlock()
				r.Matched[k] += int64(both)
				if watcher {
					r.WatchMatched += int64(both)
				}
				r.OfUnanswered[k] += int64(late)
				r.Unexpected[k] += int64(got - both - late)
			}
		}
		in.mu.Unlock()
	}
	for k := range r.Lost {
		r.Lost[k] = expected[k] - r.Matched[k] - r.NotAttempted[k]
	}
	if Owed(r.Lost) > 0 && sampleMax > 0 {
		r.Sample = sampleLost(p, inboxes, outboxes, sampleMax)
	}
	return r
}

// notAttempted counts what the acknowledged messages of local senders owed
// the users in never, conversation by conversation (chatrooms expect only
// members who joined, which these never did).
func notAttempted(p *plan.Plan, never map[uint32]bool, outboxes map[uint32]*Outbox) (out [Kinds]int64, partial bool) {
	for c := range p.Convs {
		conv := uint32(c)
		if p.Convs[c].Kind == plan.Room {
			continue
		}
		members := p.Members(conv)
		owed := 0 // members of this conversation never online
		for _, m := range members {
			if never[m] {
				owed++
			}
		}
		if owed == 0 {
			continue
		}
		k := KindIndex(p.Convs[c].Kind)
		for _, s := range members {
			ob := outboxes[s]
			if ob == nil {
				partial = true
				continue
			}
			ob.mu.Lock()
			var acked uint64
			if set := ob.acked[conv]; set != nil {
				acked = set.len()
			}
			ob.mu.Unlock()
			n := owed
			if never[s] {
				n-- // its own copy is no delivery
			}
			out[k] += int64(acked) * int64(n)
		}
	}
	return out, partial
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
					if in == nil || in.NeverOnline() || in.Has(c, s, n) {
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
