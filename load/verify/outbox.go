package verify

import "sync"

// Outbox is one sending user's record of which of its messages the server
// acknowledged, per conversation. Only acknowledged messages are expected.
// It also keeps those the server did not answer in time: their deliveries
// are neither expected nor unexpected.
type Outbox struct {
	mu         sync.Mutex
	acked      map[uint32]*seqSet
	unanswered map[uint32]*seqSet // nil until a send goes unanswered
}

// NewOutbox returns an empty outbox.
func NewOutbox() *Outbox { return &Outbox{acked: map[uint32]*seqSet{}} }

// Ack records that message n in conversation c was acknowledged.
func (o *Outbox) Ack(c uint32, n uint32) {
	o.mu.Lock()
	addTo(o.acked, c, n)
	o.mu.Unlock()
}

// Unanswered records that message n in conversation c got no answer within
// the timeout: the server may have stored it or not.
func (o *Outbox) Unanswered(c uint32, n uint32) {
	o.mu.Lock()
	if o.unanswered == nil {
		o.unanswered = map[uint32]*seqSet{}
	}
	addTo(o.unanswered, c, n)
	o.mu.Unlock()
}

func addTo(m map[uint32]*seqSet, c, n uint32) {
	s := m[c]
	if s == nil {
		s = &seqSet{}
		m[c] = s
	}
	s.add(uint64(n))
}

// Acked reports whether message n in conversation c was acknowledged.
func (o *Outbox) Acked(c uint32, n uint32) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.acked[c].has(uint64(n))
}
