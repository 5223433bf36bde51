package wukongim

import (
	"errors"
	"sync"
	"unsafe"

	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// plainBufs hold a RECV's plaintext while the verifier reads it: an
// arrival's Text is not kept once Arrive returns.
var plainBufs = sync.Pool{New: func() any { return new([]byte) }}

// onRecv decrypts a RECV, hands it to the verifier and queues its
// acknowledgement for the next flush (with its header flags: a RECVACK with
// NoPersist set leaves the message in the server's retry queue,
// wukongim.md §3). The RECV is read in place, decrypted into a reused
// buffer and parsed by the verifier itself: no allocation per message in
// the steady state.
func (c *conn) onRecv(flags uint8, body []byte) error {
	r, err := wire.DecodeRecvView(flags, body, c.version)
	if err != nil {
		return err
	}
	bp := plainBufs.Get().(*[]byte)
	defer plainBufs.Put(bp)
	payload, decrypted := c.plaintext(bp, r.Payload)
	if a, ok := c.d.arrival(c.user, inPlace(r.ChannelID), r.ChannelType, inPlace(r.FromUID), r.MessageSeq, payload); ok {
		if !decrypted {
			a.Parsed = undecryptable
		}
		c.h.Arrive(a)
	}
	return c.queueRecvack(wire.Recvack{Flags: r.Flags, MessageID: r.MessageID, MessageSeq: r.MessageSeq})
}

// inPlace reads b as a string without copying it: for the IDs arrival
// looks up and parses and never keeps, while the frame they are in is
// still being read (a copy of each is two allocations per delivery).
func inPlace(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// plaintext decrypts payload into *buf, or returns it as it is when the
// server runs without encryption; decrypted is false when it does not decrypt
// (corrupted on the way).
func (c *conn) plaintext(buf *[]byte, payload []byte) (plain []byte, decrypted bool) {
	if c.cipher == nil {
		return payload, true
	}
	plain, err := c.cipher.AppendDecrypt((*buf)[:0], payload)
	if err != nil {
		return payload, false
	}
	*buf = plain
	return plain, true
}

// undecryptable is the verdict on a payload that does not decrypt: the
// message is corrupt, not foreign to the run.
var undecryptable = &verify.Parsed{Err: errors.New("the payload does not decrypt")}

// arrival resolves a message user u received to the plan; ok is false for
// a channel that is not the plan's.
// WuKongIM carries no create time of the sender's (RECV's timestamp is the
// server's, in seconds): the body's own is the only one.
func (d *Driver) arrival(u uint32, channelID string, channelType uint8, from string, seq uint32, payload []byte) (verify.Arrival, bool) {
	var conv uint32
	switch channelType {
	case wire.ChannelGroup:
		cv, ok := d.groupOf[channelID]
		if !ok {
			return verify.Arrival{}, false
		}
		conv = cv
	case wire.ChannelLive:
		cv, ok := d.roomOf[channelID]
		if !ok {
			return verify.Arrival{}, false
		}
		conv = cv
	case wire.ChannelPerson:
		peer := d.plan.ParseUserID(channelID)
		if peer < 0 {
			return verify.Arrival{}, false
		}
		cv, ok := d.plan.SingleConv(u, uint32(peer))
		if !ok {
			return verify.Arrival{}, false
		}
		conv = cv
	default:
		return verify.Arrival{}, false
	}
	return verify.Arrival{Conv: conv, Seq: uint64(seq), Sender: d.plan.ParseUserID(from),
		Text: contentText(payload)}, true
}
