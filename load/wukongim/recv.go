package wukongim

import (
	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// onRecv decrypts a RECV, hands it to the verifier and queues its
// acknowledgement for the next flush (with its header flags: a RECVACK with NoPersist set leaves the message
// in the server's retry queue, wukongim.md §3).
func (c *conn) onRecv(flags uint8, body []byte) error {
	r, err := wire.DecodeRecv(flags, body, c.version)
	if err != nil {
		return err
	}
	payload := r.Payload
	if c.cipher != nil {
		if payload, err = c.cipher.Decrypt(r.Payload); err != nil {
			payload = r.Payload // corrupted on the way: the verifier counts it
		}
	}
	if a, ok := c.d.arrival(c.user, r.ChannelID, r.ChannelType, r.FromUID, r.MessageSeq, payload); ok {
		a.Parsed = verify.Parse(a.Text)
		c.h.Arrive(a)
	}
	return c.queueRecvack(wire.Recvack{Flags: r.Flags, MessageID: r.MessageID, MessageSeq: r.MessageSeq})
}

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
