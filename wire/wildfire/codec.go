package wildfire

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/imbench/imbench/wire/internal/varlen"
)

// Packet is any frame Wildfire uses. Append encodes it, header included, and
// appends it to dst; on error dst comes back unchanged.
type Packet interface {
	PacketType() PacketType
	Append(dst []byte) ([]byte, error)
}

// Decode decodes one body of type t with the header's flag nibble, as
// SplitFrame returned them. String fields are copied; Payload, Password and
// the other byte fields alias body (nil when empty). Flags the server's
// decoder refuses are ErrBadFlags, types Wildfire does not use
// ErrUnsupported.
func Decode(t PacketType, flags uint8, body []byte) (Packet, error) {
	if !t.Valid() {
		return nil, ErrUnknownType
	}
	if !ValidFlags(t, flags) {
		return nil, decodeErr(t, ErrBadFlags)
	}
	var p Packet
	var err error
	switch t {
	case TypeConnect:
		p, err = DecodeConnect(body)
	case TypeConnack:
		p, err = DecodeConnack(body)
	case TypePublish:
		p, err = DecodePublish(flags, body)
	case TypePuback:
		p, err = DecodePuback(body)
	case TypePingreq:
		p, err = empty(t, body, Pingreq{})
	case TypePingresp:
		p, err = empty(t, body, Pingresp{})
	case TypeDisconnect:
		p, err = empty(t, body, Disconnect{})
	default:
		err = decodeErr(t, ErrUnsupported)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

func empty(t PacketType, body []byte, p Packet) (Packet, error) {
	if len(body) != 0 {
		return nil, decodeErr(t, ErrTrailing)
	}
	return p, nil
}

// DecodeFrame splits the first frame off buf and decodes it. n == 0 with a
// nil error means more bytes are needed (see SplitFrame).
func DecodeFrame(buf []byte) (p Packet, n int, err error) {
	t, flags, body, n, err := SplitFrame(buf)
	if err != nil || n == 0 {
		return nil, 0, err
	}
	p, err = Decode(t, flags, body)
	if err != nil {
		return nil, 0, err
	}
	return p, n, nil
}

// reader consumes a body front to back. The first shortfall sticks in err
// and every later read returns zero, so decoders check once at the end.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.b) < n {
		r.err, r.b = ErrShort, nil
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8() uint8 {
	if v := r.take(1); v != nil {
		return v[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if v := r.take(2); v != nil {
		return binary.BigEndian.Uint16(v)
	}
	return 0
}

// bin reads a uint16-prefixed byte field; empty is nil.
func (r *reader) bin() []byte {
	n := r.u16()
	v := r.take(int(n))
	if len(v) == 0 {
		return nil
	}
	return v
}

// str reads a uint16-prefixed string.
func (r *reader) str() string { return string(r.bin()) }

// rest returns the remaining bytes (nil when none): a payload has no prefix.
func (r *reader) rest() []byte {
	if r.err != nil || len(r.b) == 0 {
		return nil
	}
	v := r.b
	r.b = nil
	return v
}

// end reports trailing bytes as ErrTrailing.
func (r *reader) end() {
	if r.err == nil && len(r.b) != 0 {
		r.err = ErrTrailing
	}
}

func decodeErr(t PacketType, err error) error {
	return fmt.Errorf("wildfire: decode %s: %w", t, err)
}

// sizer adds up a body's length and checks its fields on the way.
type sizer struct {
	n   int
	err error
}

func (s *sizer) field(n int) {
	if n > 0xffff && s.err == nil {
		s.err = ErrStringTooLong
	}
	s.n += 2 + n
}

func (s *sizer) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// frameStart checks a body's size and appends its header, growing dst once.
func frameStart(dst []byte, t PacketType, flags uint8, s sizer) ([]byte, error) {
	if s.err == nil && s.n > MaxRemainingLength {
		s.err = ErrFrameTooLarge
	}
	if s.err != nil {
		return dst, fmt.Errorf("wildfire: encode %s: %w", t, s.err)
	}
	out, err := AppendHeader(slices.Grow(dst, 1+varlen.Len(s.n)+s.n), t, flags, s.n)
	if err != nil {
		return dst, fmt.Errorf("wildfire: encode %s: %w", t, err)
	}
	return out, nil
}

func appendStr(dst []byte, v string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(v)))
	return append(dst, v...)
}

func appendBin(dst, v []byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(v)))
	return append(dst, v...)
}

// validTopic is the server's check on PUBLISH topic names: no wildcards.
func validTopic(topic string) bool { return !strings.ContainsAny(topic, "+#") }
