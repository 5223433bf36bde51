package wukongim

import (
	"strconv"

	"github.com/imbench/imbench/load/plan"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// A text travels as the SDKs' text content, {"type":1,"content":"…"}; a
// benchmark text never needs JSON escaping (verify.AppendBody).
const (
	contentHead = `{"type":1,"content":"`
	contentTail = `"}`
)

func appendContent(dst, text []byte) []byte {
	dst = append(dst, contentHead...)
	dst = append(dst, text...)
	return append(dst, contentTail...)
}

// contentText is a payload's text, or the payload itself when it is not a
// text content (the verifier then counts it as foreign).
func contentText(p []byte) []byte {
	if len(p) >= len(contentHead)+len(contentTail) && string(p[:len(contentHead)]) == contentHead &&
		string(p[len(p)-len(contentTail):]) == contentTail {
		return p[len(contentHead) : len(p)-len(contentTail)]
	}
	return p
}

// Send implements engine.Conn: a SEND whose SENDACK calls done.
func (c *conn) Send(m plan.Msg, text []byte, createMs int64, done func(error)) error {
	channelID, typ := c.d.channel(m.Conv, m.Sender)
	seq := c.seq.Add(1)
	s := wire.Send{Flags: wire.FlagRedDot, ClientSeq: seq, ChannelID: channelID, ChannelType: typ,
		ClientMsgNo: c.uid + "-" + strconv.FormatUint(uint64(m.Conv), 36) + "-" + strconv.FormatUint(uint64(m.N), 36)}
	plain := appendContent(make([]byte, 0, len(text)+len(contentHead)+len(contentTail)), text)
	if c.cipher == nil {
		s.Payload = plain
	} else {
		s.Payload = c.cipher.Encrypt(plain)
		s.MsgKey = c.cipher.MsgKey(s.AppendSign(nil))
	}
	w := &await{conv: m.Conv, done: done}
	if err := c.acks.Add(seq, w); err != nil {
		return err // closed: the clientSeq is new
	}
	if err := c.write(s); err != nil {
		if _, ok := c.acks.Take(seq); ok {
			return err
		}
		return nil
	}
	return nil
}
