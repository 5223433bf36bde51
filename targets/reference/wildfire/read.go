package wildfire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"time"

	wire "github.com/imbench/imbench/wire/wildfire"
)

var pingresp = wire.AppendPingresp(nil)

// readLoop handles a logged-in connection's frames until it ends: a
// connection silent for idle (0: never) is dropped and counted; a frame
// that does not decode, a second CONNECT or a DISCONNECT ends it (the
// session stays).
func (c *conn) readLoop(r *frameReader, idle time.Duration) {
	m := c.f.Metrics
	for {
		var deadline time.Time
		if idle > 0 {
			deadline = time.Now().Add(idle)
		}
		typ, flags, body, err := r.next(deadline)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && !c.ended() {
				m.HeartbeatTimeout()
			}
			return
		}
		switch typ {
		case wire.TypePingreq:
			if len(body) != 0 {
				return
			}
			m.pings.Inc()
			c.put(pingresp)
		case wire.TypePublish:
			if !c.onPublish(flags, body) {
				return
			}
		case wire.TypeDisconnect:
			if len(body) == 0 {
				c.Close()
			}
			return
		case wire.TypeConnect:
			return
		}
		// Anything else that frames (a PUBACK, SUBSCRIBE, …) is ignored.
	}
}

// The topics served, and the label of every other.
const topicOther = ""

// servedTopic names a request's topic by one of the constants, without
// allocating: "" for a topic not served.
func servedTopic(b []byte) string {
	switch string(b) {
	case wire.TopicSendMessage:
		return wire.TopicSendMessage
	case wire.TopicPullMessage:
		return wire.TopicPullMessage
	case wire.TopicJoinChatroom:
		return wire.TopicJoinChatroom
	case wire.TopicQuitChatroom:
		return wire.TopicQuitChatroom
	case wire.TopicGetUserSetting:
		return wire.TopicGetUserSetting
	}
	return topicOther
}

// onPublish answers one request (wildfire.md §5.4): QoS 0 is ignored;
// QoS 1 is rate-limited per clientId and topic (250), an unknown topic
// answered 254, a body that does not decrypt 2, else the handler's code
// and result. false ends the connection: a PUBLISH that does not decode.
func (c *conn) onPublish(flags uint8, body []byte) bool {
	qos := (flags & wire.FlagQoSMask) >> 1
	if len(body) < 2 {
		return false
	}
	n := int(binary.BigEndian.Uint16(body))
	if len(body) < 2+n {
		return false
	}
	raw, rest := body[2:2+n], body[2+n:]
	if bytes.ContainsAny(raw, "+#") {
		return false
	}
	if qos == 0 {
		return true
	}
	if len(rest) < 2 {
		return false
	}
	id := binary.BigEndian.Uint16(rest)
	if id == 0 {
		return false
	}
	if qos != 1 {
		return true // QoS 2: nothing in Wildfire sends it
	}
	payload := rest[2:]
	topic := servedTopic(raw)
	m := c.f.Metrics
	m.request(topic)
	now := time.Now()
	if !wire.RateLimitExempt(topic) && !c.s.allow(topic, c.f.RateLimit, now.UnixNano()) {
		c.respond(id, topic, wire.CodeOverFrequency, nil)
		return true
	}
	if topic == topicOther || topic == wire.TopicGetUserSetting {
		c.respond(id, topic, wire.CodeNotImplement, nil)
		return true
	}
	plain, err := c.s.cipher.Decrypt(payload, wire.HourOf(now))
	if err != nil {
		c.respond(id, topic, wire.CodeInvalidData, nil)
		return true
	}
	var code wire.ErrorCode
	var result []byte
	switch topic {
	case wire.TopicSendMessage:
		var late time.Duration
		if code, result, late = c.onSend(plain); late > 0 {
			c.respondLate(late, id, topic, code, result)
			return true
		}
	case wire.TopicPullMessage:
		var stall bool
		if code, result, stall = c.onPull(plain); stall {
			return true
		}
	case wire.TopicJoinChatroom:
		code = c.onChatroom(plain, true)
	case wire.TopicQuitChatroom:
		code = c.onChatroom(plain, false)
	}
	c.respond(id, topic, code, result)
	return true
}

// gzipOver is the result size above which a level-6 client gets it gzipped
// (code 255, §5.4).
const gzipOver = 7 << 10

// respond queues the PUBACK of request id: code, and result encrypted with
// the session key when there is one.
func (c *conn) respond(id uint16, topic string, code wire.ErrorCode, result []byte) {
	b, ok := c.response(c.answer[:0], id, topic, code, result)
	if !ok {
		return
	}
	c.put(b)
	if cap(b) > keepBuf {
		b = nil
	}
	c.answer = b
}

// respondLate answers after d (the ack-late fault), from a timer and in a
// buffer of its own: the connection's reads go on meanwhile.
func (c *conn) respondLate(d time.Duration, id uint16, topic string, code wire.ErrorCode, result []byte) {
	result = bytes.Clone(result)
	time.AfterFunc(d, func() {
		if b, ok := c.response(nil, id, topic, code, result); ok {
			c.put(b)
		}
	})
}

// response appends the PUBACK answering request id to dst.
func (c *conn) response(dst []byte, id uint16, topic string, code wire.ErrorCode, result []byte) ([]byte, bool) {
	c.f.Metrics.answered(topic, code)
	if code == wire.CodeSuccess && c.level >= wire.LevelMQTT5 && len(result) > gzipOver {
		if z, err := gzipped(result); err == nil {
			code, result = wire.CodeSuccessGzipped, z
		}
	}
	b, err := wire.AppendResponse(dst, id, code, c.s.cipher, wire.HourNow(), result)
	if err != nil {
		c.f.Log.Warn("wildfire: PUBACK not encodable", "user", c.uid, "err", err)
		return nil, false
	}
	return b, true
}

// frameReader cuts frames out of a connection's stream.
type frameReader struct {
	nc         net.Conn
	buf        []byte
	start, end int
	m          *Metrics
}

// readBuf is the first read buffer; a larger frame grows it.
const readBuf = 4096

// next returns the next frame, refusing bodies over the real server's
// limit and the flags its decoder refuses; body aliases the buffer until
// the next call. deadline (zero: none) bounds the wait for more bytes.
func (r *frameReader) next(deadline time.Time) (wire.PacketType, uint8, []byte, error) {
	for {
		t, flags, body, n, err := wire.SplitFrameLimit(r.buf[r.start:r.end], wire.MaxClientRemainingLength)
		if err != nil {
			return 0, 0, nil, err
		}
		if n > 0 {
			r.start += n
			return t, flags, body, nil
		}
		if err := r.fill(deadline); err != nil {
			return 0, 0, nil, err
		}
	}
}

func (r *frameReader) fill(deadline time.Time) error {
	if r.start > 0 {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	}
	if r.end == 0 && len(r.buf) > 16*readBuf {
		r.buf = make([]byte, readBuf) // a large frame is gone: give its room back
	}
	if r.end == len(r.buf) {
		r.buf = append(r.buf, make([]byte, len(r.buf))...)
	}
	r.nc.SetReadDeadline(deadline)
	n, err := r.nc.Read(r.buf[r.end:])
	r.end += n
	r.m.inBytes.Add(float64(n))
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}
