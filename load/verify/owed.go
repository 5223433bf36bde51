package verify

import (
	"github.com/imbench/imbench/load/plan"
)

// OwedMsg is one acknowledged message that some of its conversation's
// receivers never got: the deliveries still owed when the run ended.
type OwedMsg struct {
	Sender, N uint32
	Receivers []uint32
}

// OwedSet is the deliveries still owed at the end of a run, by plan
// conversation (chatrooms left out: their misses are a rate).
type OwedSet struct {
	ByConv map[uint32][]OwedMsg
	// Listed deliveries, by kind; Complete is false when the listing
	// stopped at its budget, the rest not listed.
	Listed   [Kinds]int64
	Complete bool
}

// ListOwed lists the deliveries of acknowledged messages of local senders that
// local receivers who got online never received, up to budget of them.
// Call it once the run's connections are closed.
func ListOwed(p *plan.Plan, inboxes map[uint32]*Inbox, outboxes map[uint32]*Outbox, budget int64) OwedSet {
	out := OwedSet{ByConv: map[uint32][]OwedMsg{}, Complete: true}
	var listed int64
	for c := range p.Convs {
		conv := uint32(c)
		if p.Convs[c].Kind == plan.Room {
			continue
		}
		k := KindIndex(p.Convs[c].Kind)
		members := p.Members(conv)
		for _, s := range members {
			ob := outboxes[s]
			if ob == nil {
				continue
			}
			ob.mu.Lock()
			acked := ob.acked[conv]
			ob.mu.Unlock()
			if acked == nil || acked.len() == 0 {
				continue
			}
			missing := map[uint32][]uint32{} // message number → receivers
			for _, r := range members {
				in := inboxes[r]
				if r == s || in == nil || !p.Reachable(r) || in.NeverOnline() {
					continue
				}
				in.mu.Lock()
				var got *seqSet
				if cv := in.convs[conv]; cv != nil {
					if si := cv.from.get(s); si != nil {
						got = &si.got
					}
				}
				if got == nil || got.intersect(acked) < acked.len() {
					acked.each(func(n uint64) bool {
						if got == nil || !got.has(n) {
							if listed >= budget {
								out.Complete = false
								return false
							}
							missing[uint32(n)] = append(missing[uint32(n)], r)
							listed++
							out.Listed[k]++
						}
						return true
					})
				}
				in.mu.Unlock()
			}
			for n, rs := range missing {
				out.ByConv[conv] = append(out.ByConv[conv], OwedMsg{Sender: s, N: n, Receivers: rs})
			}
		}
	}
	return out
}

// MsgKey names one message of the run: its conversation, sender and
// number (the body's fields).
type MsgKey struct{ Conv, Sender, N uint32 }

// HeldSplit is what a check of the server's store made of the owed
// deliveries: those whose message the server holds (stored, never
// delivered within the drain: late), and those whose message it does not
// (acknowledged, never stored), and those no read covered: unchecked, the
// server did not answer their read, whether it holds them is not known.
type HeldSplit struct {
	Late, NeverStored, Unchecked [Kinds]int64
	// Messages: owed messages the server holds for some receiver, and
	// those it holds for none of those read.
	MessagesHeld, MessagesNeverStored int
}

// Split classifies the owed deliveries that a read covered (read): held
// says whether the server holds message k for receiver r.
func (o OwedSet) Split(p *plan.Plan, read func(conv, r uint32) bool, held func(k MsgKey, r uint32) bool) HeldSplit {
	var h HeldSplit
	for conv, msgs := range o.ByConv {
		k := KindIndex(p.Convs[conv].Kind)
		for _, m := range msgs {
			key := MsgKey{conv, m.Sender, m.N}
			var some, none bool
			for _, r := range m.Receivers {
				if !read(conv, r) {
					h.Unchecked[k]++
					continue
				}
				if held(key, r) {
					h.Late[k]++
					some = true
				} else {
					h.NeverStored[k]++
					none = true
				}
			}
			if some {
				h.MessagesHeld++
			} else if none {
				h.MessagesNeverStored++
			}
		}
	}
	return h
}

// Apply moves the check's late and unchecked deliveries out of Lost and
// records the never-stored part of what stays: lost is what the server
// was asked for and does not hold.
func (r *Reconciliation) Apply(h HeldSplit) {
	for k := range r.Lost {
		r.Late[k], r.NeverStored[k], r.Unchecked[k] = h.Late[k], h.NeverStored[k], h.Unchecked[k]
		r.Lost[k] -= h.Late[k] + h.Unchecked[k]
	}
}
