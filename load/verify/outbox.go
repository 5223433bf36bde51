package verify

import "sync"

// Outbox is one sending user's record of which of its messages the server
// acknowledged, per conversation. Only acknowledged messages are expected.
type Outbox struct {
	mu    sync.Mutex
	acked map[uint32]*seqSet
}

// NewOutbox returns an empty outbox.
func NewOutbox() *Outbox { return &Outbox{acked: map[uint32]*seqSet{}} }

// Ack records that message n in conversation c was acknowledged.
func (o *Outbox) Ack(c uint32, n uint32) {
	o.mu.Lock()
	s := o.acked[c]
	if s == nil {
		s = &seqSet{}
		o.acked[c] = s
	}
	s.add(uint64(n))
	o.mu.Unlock()
}

// Acked reports whether message n in conversation c was acknowledged.
func (o *Outbox) Acked(c uint32, n uint32) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.acked[c].has(uint64(n))
}
