package wukongim

import (
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// onSend answers a SEND with its SENDACK; false (a SEND that does not
// decode) ends the connection. SENDs are handled in the order they came, so
// a sender's messages of a channel get contiguous seqs and their SENDACKs
// go out in order.
func (c *conn) onSend(flags uint8, body []byte) bool {
	s, err := wire.DecodeSend(flags, body, c.version)
	if err != nil {
		return false
	}
	m := c.g.f.Metrics
	m.sendPackets.Inc()
	m.inMsgs.Add(1)
	c.stats.inMsgs.Add(1)
	c.stats.inMsgBytes.Add(int64(len(s.Payload)))
	ack := wire.Sendack{Flags: flags, ClientSeq: s.ClientSeq}
	var late time.Duration
	ack.MessageID, ack.MessageSeq, ack.ReasonCode, late = c.send(&s)
	b, err := ack.Append(nil, c.version)
	if err != nil {
		return false
	}
	if late > 0 {
		time.AfterFunc(late, func() { c.enqueue(frame{data: b, at: time.Now()}) })
		return true
	}
	return c.enqueue(frame{data: b, at: time.Now()})
}

// send checks, decrypts and stores one message (wukongim.md §4.5): the
// msgKey is checked before the payload is decrypted, a mismatch or a payload
// that does not decrypt being reason 9. As the real server, every SEND gets
// a fresh message id as it is read, and its SENDACK carries it refused or
// not (internal/server/proto.go). A NoPersist message is pushed to those
// online and stored nowhere: seq 0 in its SENDACK and RECVs, nothing for
// /channel/messagesync (event_persist.go skips it).
func (c *conn) send(s *wire.Send) (id int64, seq uint32, reason wire.ReasonCode, late time.Duration) {
	id = c.g.f.ids.next()
	plain := s.Payload // stored.encode copies it out of the read buffer
	if c.cipher != nil {
		if c.cipher.MsgKey(s.AppendSign(nil)) != s.MsgKey {
			return id, 0, wire.ReasonPayloadDecodeError, 0
		}
		var err error
		if plain, err = c.cipher.Decrypt(s.Payload); err != nil {
			return id, 0, wire.ReasonPayloadDecodeError, 0
		}
	}
	key, ok := convOf(c.uid, s.ChannelID, s.ChannelType)
	if !ok {
		if !servedType(s.ChannelType) {
			return id, 0, wire.ReasonNotSupportChannelType, 0
		}
		return id, 0, wire.ReasonChannelIDError, 0
	}
	if c.g.f.Open && key.Kind == core.Direct {
		c.g.ensure(s.ChannelID) // the real server in its open setting takes any uid
	}
	st := stored{Flags: s.Flags, Setting: s.Setting, Expire: s.Expire, MessageID: id, Origin: c.id, Topic: s.Topic, Plain: plain}
	msg, err := c.g.b.Send(&core.Message{Conv: key, Sender: c.uid, ClientID: s.ClientMsgNo, Payload: st.encode(),
		Transient: s.Flags&wire.FlagNoPersist != 0})
	if err != nil {
		return id, 0, reasonOf(err), 0
	}
	return id, uint32(msg.Seq), wire.ReasonSuccess, msg.AckLate
}
