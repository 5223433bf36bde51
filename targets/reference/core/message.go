package core

import "sync"

// Message is a stored message. The core reads none of the payload: a front
// end puts there what its protocol needs to give the message back.
type Message struct {
	Conv     ConvKey
	Sender   string
	ClientID string // the sender's id of the message, as its client made it
	Seq      int64  // from 1 per conversation; 0 for a message lost on purpose
	Time     int64  // when the core accepted it, Unix milliseconds
	Payload  []byte
}

// Page is what a pull returns: messages of one conversation in seq order.
type Page struct {
	Msgs   []*Message
	EndSeq int64 // the last seq of the range served
	AtEnd  bool  // nothing after EndSeq yet
}

// Push is one message on its way to its online recipients: one per message
// and process, shared by all of them, so that what a front end makes of it
// (its encoded frames) is made once per fan-out and kept in Slot.
type Push struct {
	Msg *Message

	once sync.Once
	slot any
}

// Slot returns the front end's value for this push, made by init on first
// use. A process serves one front end's connections, so one slot suffices.
func (p *Push) Slot(init func(*Message) any) any {
	p.once.Do(func() { p.slot = init(p.Msg) })
	return p.slot
}
