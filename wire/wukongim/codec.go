package wukongim

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/imbench/imbench/wire/internal/varlen"
)

// Packet is any frame of the protocol. Append encodes it, header included,
// at a negotiated protocol version and appends it to dst; on error dst comes
// back unchanged. CONNECT's layout ignores the version (its own Version field
// travels inside), as do the fixed layouts.
type Packet interface {
	PacketType() PacketType
	Append(dst []byte, version uint8) ([]byte, error)
}

// Decode decodes one body of type t (as SplitFrame returned it) at a
// negotiated version. Byte and string fields are copied; Payload and Data
// alias body. Bytes after the last field are ignored, as GoProto does.
func Decode(t PacketType, flags uint8, body []byte, version uint8) (Packet, error) {
	switch t {
	case TypeConnect:
		return DecodeConnect(flags, body, version)
	case TypeConnack:
		return DecodeConnack(flags, body, version)
	case TypeSend:
		return DecodeSend(flags, body, version)
	case TypeSendack:
		return DecodeSendack(flags, body, version)
	case TypeRecv:
		return DecodeRecv(flags, body, version)
	case TypeRecvack:
		return DecodeRecvack(flags, body, version)
	case TypePing:
		return Ping{}, nil
	case TypePong:
		return Pong{}, nil
	case TypeDisconnect:
		return DecodeDisconnect(flags, body, version)
	case TypeSub:
		return DecodeSub(flags, body, version)
	case TypeSuback:
		return DecodeSuback(flags, body, version)
	case TypeEvent:
		return DecodeEvent(flags, body, version)
	}
	return nil, ErrUnknownType
}

// DecodeFrame splits the first frame off buf and decodes it. n == 0 with a
// nil error means more bytes are needed (see SplitFrame).
func DecodeFrame(buf []byte, version uint8) (p Packet, n int, err error) {
	t, flags, body, n, err := SplitFrame(buf)
	if err != nil || n == 0 {
		return nil, 0, err
	}
	p, err = Decode(t, flags, body, version)
	if err != nil {
		return nil, 0, err
	}
	return p, n, nil
}

// streamFields reports whether SEND and RECV carry stream fields (§2).
func streamFields(version, setting uint8) bool {
	return version >= 2 && version < 5 && setting&SettingStream != 0
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

func (r *reader) u32() uint32 {
	if v := r.take(4); v != nil {
		return binary.BigEndian.Uint32(v)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if v := r.take(8); v != nil {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

// str reads a uint16-prefixed string whose length GoProto reads as int16.
func (r *reader) str() string { return string(r.strBytes()) }

// strBytes is str without the copy: the string's bytes in the body.
func (r *reader) strBytes() []byte {
	v := r.take(2)
	if v == nil {
		return nil
	}
	n := int16(binary.BigEndian.Uint16(v))
	if n < 0 {
		r.err, r.b = ErrBadString, nil
		return nil
	}
	return r.take(int(n))
}

// rest returns the remaining bytes: a payload has no length prefix.
func (r *reader) rest() []byte {
	if r.err != nil {
		return nil
	}
	v := r.b
	r.b = r.b[len(r.b):]
	return v
}

func decodeErr(t PacketType, err error) error {
	return fmt.Errorf("wukongim: decode %s: %w", t, err)
}

// sizer adds up a body's length and checks its strings on the way.
type sizer struct {
	n   int
	err error
}

func (s *sizer) str(v string) {
	if len(v) > MaxStringLen && s.err == nil {
		s.err = ErrStringTooLong
	}
	s.n += 2 + len(v)
}

// frameStart checks a body's size and appends its header.
func frameStart(dst []byte, t PacketType, flags uint8, s sizer) ([]byte, error) {
	if s.err == nil && s.n > MaxRemainingLength {
		s.err = ErrFrameTooLarge
	}
	if s.err != nil {
		return dst, fmt.Errorf("wukongim: encode %s: %w", t, s.err)
	}
	out, err := AppendHeader(slices.Grow(dst, 1+varlen.MaxBytes+s.n), t, flags, s.n)
	if err != nil {
		return dst, fmt.Errorf("wukongim: encode %s: %w", t, err)
	}
	return out, nil
}

func appendStr(dst []byte, v string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(v)))
	return append(dst, v...)
}
