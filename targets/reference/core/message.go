package core

import (
	"sync"
	"time"
)

// Message is a stored message. The core reads none of the payload: a front
// end puts there what its protocol needs to give the message back.
type Message struct {
	Conv     ConvKey
	Sender   string
	ClientID string // the sender's id of the message, as its client made it
	Seq      int64  // from 1 per conversation; 0 for a message lost on purpose
	Time     int64  // when the core accepted it, Unix milliseconds
	Payload  []byte
	System   bool // made by the server (a notification): never faulted, sent by whoever the front end names
	// RequestID is the front end's id of the request that sent it (OpenIM's
	// operationID), which its pushes carry. Only pushes need it: the state
	// log does not keep it.
	RequestID string
	// AckLate is how late the front end answers the sender (the ack-late
	// fault; 0: at once). Only that answer waits, not the connection.
	AckLate time.Duration
	// Transient: pushed to the members online and kept nowhere, with no
	// seq (WuKongIM's NoPersist): no pull, no feed, no state log.
	Transient bool
}

// Page is what a pull returns: messages of one conversation in seq order.
type Page struct {
	Msgs   []*Message
	EndSeq int64 // the last seq of the range served
	AtEnd  bool  // nothing after EndSeq yet
}

// Push is one message on its way to its online recipients: one per message
// and process, shared by all of them, so that what a front end makes of it
// (its encoded frames) is made once per fan-out and kept in a slot.
type Push struct {
	Msg *Message

	once sync.Once
	key  any // whose value slot holds
	slot any

	mu     sync.Mutex
	others map[any]any // the values of other front ends of the process
}

// Slot returns the front end's value for this push, made by init on first
// use. It is SlotFor with a nil key.
func (p *Push) Slot(init func(*Message) any) any { return p.SlotFor(nil, init) }

// SlotFor is Slot for a process that serves several front ends, a message of
// one possibly reaching another's connections: key (comparable, of the front
// end's own) keeps their values apart. The first front end to ask gets the
// lock-free slot.
func (p *Push) SlotFor(key any, init func(*Message) any) any {
	p.once.Do(func() { p.key, p.slot = key, init(p.Msg) })
	if p.key == key {
		return p.slot
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.others[key]
	if !ok {
		v = init(p.Msg)
		if p.others == nil {
			p.others = map[any]any{}
		}
		p.others[key] = v
	}
	return v
}
