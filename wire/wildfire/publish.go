package wildfire

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Publish carries an IM request (client→server, QoS 1, body encrypted with
// the session key) or a push (server→client, QoS 0, plaintext) (§2, §5.4).
// The server ignores QoS 0 requests and never uses QoS 2.
type Publish struct {
	Dup      bool
	QoS      uint8 // 0 or 1 (2 frames, but nothing in Wildfire sends it)
	Retain   bool
	Topic    string // an IM topic (topics.go); wildcards are refused
	PacketID uint16 // iff QoS > 0; 1–65535, matched by the PUBACK
	Payload  []byte // the rest of the frame
}

// PacketType implements Packet.
func (Publish) PacketType() PacketType { return TypePublish }

func (p Publish) flags() uint8 {
	f := p.QoS << 1
	if p.Dup {
		f |= FlagDUP
	}
	if p.Retain {
		f |= FlagRetain
	}
	return f
}

// Append implements Packet.
func (p Publish) Append(dst []byte) ([]byte, error) {
	s := sizer{n: len(p.Payload)}
	s.field(len(p.Topic))
	p.check(&s)
	dst, err := frameStart(dst, TypePublish, p.flags()&0x0f, s)
	if err != nil {
		return dst, err
	}
	dst = appendStr(dst, p.Topic)
	if p.QoS > 0 {
		dst = binary.BigEndian.AppendUint16(dst, p.PacketID)
	}
	return append(dst, p.Payload...), nil
}

func (p Publish) check(s *sizer) {
	switch {
	case p.QoS > 2:
		s.fail(ErrQoS)
	case !validTopic(p.Topic):
		s.fail(ErrBadTopic)
	case p.QoS > 0:
		s.n += 2
		if p.PacketID == 0 {
			s.fail(ErrPacketID)
		}
	}
}

// DecodePublish decodes a PUBLISH body with its header flags. As the
// server's decoder does, it refuses QoS 3, a topic with a wildcard and
// packet id 0.
func DecodePublish(flags uint8, body []byte) (Publish, error) {
	if !ValidFlags(TypePublish, flags) {
		return Publish{}, decodeErr(TypePublish, ErrBadFlags)
	}
	r := reader{b: body}
	p := Publish{Dup: flags&FlagDUP != 0, QoS: (flags & FlagQoSMask) >> 1, Retain: flags&FlagRetain != 0}
	p.Topic = r.str()
	if p.QoS > 0 {
		p.PacketID = r.u16()
		if r.err == nil && p.PacketID == 0 {
			r.err = ErrPacketID
		}
	}
	if r.err == nil && !validTopic(p.Topic) {
		r.err = ErrBadTopic
	}
	p.Payload = r.rest()
	if r.err != nil {
		return Publish{}, decodeErr(TypePublish, r.err)
	}
	return p, nil
}

// AppendRequest appends a client request: PUBLISH QoS 1 on topic with
// packetID, the payload being c's encryption of plain at hour h (§5.4). It
// writes straight into dst, growing it at most once. plain must not be empty
// (the server cannot decrypt an empty body, §3.1): send a zero-length payload
// with AppendPublish instead.
func AppendRequest(dst []byte, topic string, packetID uint16, c *Cipher, h Hour, plain []byte) ([]byte, error) {
	if len(plain) == 0 {
		return dst, fmt.Errorf("wildfire: encode PUBLISH: %w", ErrEmptyPlaintext)
	}
	p := Publish{QoS: 1, Topic: topic, PacketID: packetID}
	s := sizer{n: c.EncryptedLen(len(plain))}
	s.field(len(topic))
	p.check(&s)
	dst, err := frameStart(dst, TypePublish, p.flags(), s)
	if err != nil {
		return dst, err
	}
	dst = appendStr(dst, topic)
	dst = binary.BigEndian.AppendUint16(dst, packetID)
	return c.AppendEncrypt(dst, h, plain), nil
}

// AppendPush appends a server push: PUBLISH QoS 0, plaintext payload (MN,
// MS for transparent messages, ROFL, …; §5.6).
func AppendPush(dst []byte, topic string, payload []byte) ([]byte, error) {
	return Publish{Topic: topic, Payload: payload}.Append(dst)
}

// Puback answers a QoS 1 request (§5.4, §14): Wildfire adds a code byte
// and, when the handler produced a result, that result encrypted with the
// session key (gzip-compressed first when Code is CodeSuccessGzipped).
// PUBACKs can arrive out of order: match them on PacketID.
type Puback struct {
	PacketID uint16
	Code     ErrorCode
	Data     []byte // wfAES(secret)(hour4 ‖ result), nil when absent
}

// PacketType implements Packet.
func (Puback) PacketType() PacketType { return TypePuback }

// Append implements Packet.
func (a Puback) Append(dst []byte) ([]byte, error) {
	s := sizer{n: 3 + len(a.Data)}
	if a.PacketID == 0 {
		s.fail(ErrPacketID)
	}
	dst, err := frameStart(dst, TypePuback, 0, s)
	if err != nil {
		return dst, err
	}
	dst = binary.BigEndian.AppendUint16(dst, a.PacketID)
	dst = append(dst, byte(a.Code))
	return append(dst, a.Data...), nil
}

// DecodePuback decodes a PUBACK body. A bare MQTT PUBACK (packet id only) is
// ErrShort: the server always adds the code.
func DecodePuback(body []byte) (Puback, error) {
	r := reader{b: body}
	var a Puback
	a.PacketID = r.u16()
	a.Code = ErrorCode(r.u8())
	a.Data = r.rest()
	if r.err == nil && a.PacketID == 0 {
		r.err = ErrPacketID
	}
	if r.err != nil {
		return Puback{}, decodeErr(TypePuback, r.err)
	}
	return a, nil
}

// Result decrypts Data with the session cipher, checking its hour against
// now; a Puback without data gives nil and no error. It does not gunzip:
// see Gunzip for CodeSuccessGzipped.
func (a Puback) Result(c *Cipher, now Hour) ([]byte, error) {
	if len(a.Data) == 0 {
		return nil, nil
	}
	return c.Decrypt(a.Data, now)
}

// AppendResult appends Result(c, now) to dst (see Cipher.AppendDecrypt).
func (a Puback) AppendResult(dst []byte, c *Cipher, now Hour) ([]byte, error) {
	if len(a.Data) == 0 {
		return dst, nil
	}
	return c.AppendDecrypt(dst, a.Data, now)
}

// AppendResponse appends a server's PUBACK for packetID with code and, when
// result is not empty, result encrypted by c at hour h, growing dst once.
func AppendResponse(dst []byte, packetID uint16, code ErrorCode, c *Cipher, h Hour, result []byte) ([]byte, error) {
	s := sizer{n: 3}
	if len(result) > 0 {
		s.n += c.EncryptedLen(len(result))
	}
	if packetID == 0 {
		s.fail(ErrPacketID)
	}
	dst, err := frameStart(dst, TypePuback, 0, s)
	if err != nil {
		return dst, err
	}
	dst = binary.BigEndian.AppendUint16(dst, packetID)
	dst = append(dst, byte(code))
	if len(result) > 0 {
		dst = c.AppendEncrypt(dst, h, result)
	}
	return dst, nil
}

// ErrSendResult: an MS result that is not 16 bytes.
var ErrSendResult = errors.New("wildfire: MS result is not 16 bytes")

// ParseSendResult reads a successful MS result (§5.5, §14): messageUid then
// the server timestamp (ms), both int64 big-endian.
func ParseSendResult(result []byte) (messageUID, timestamp int64, err error) {
	if len(result) != SendResultLen {
		return 0, 0, ErrSendResult
	}
	return int64(binary.BigEndian.Uint64(result)), int64(binary.BigEndian.Uint64(result[8:])), nil
}

// AppendSendResult appends an MS result: messageUID and timestamp, int64
// big-endian each.
func AppendSendResult(dst []byte, messageUID, timestamp int64) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(messageUID))
	return binary.BigEndian.AppendUint64(dst, uint64(timestamp))
}

// ErrTooLarge: a gzipped result that inflates past the caller's limit.
var ErrTooLarge = errors.New("wildfire: inflated result over the limit")

// Gunzip inflates a CodeSuccessGzipped result (after decryption; levels >= 5
// only, §5.4, §14), refusing more than limit bytes of output.
func Gunzip(data []byte, limit int) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("wildfire: gunzip: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("wildfire: gunzip: %w", err)
	}
	if len(out) > limit {
		return nil, ErrTooLarge
	}
	return out, nil
}
