package wukongim

import (
	"errors"

	"github.com/imbench/imbench/wire/internal/varlen"
)

// Errors of the framing and the packet codecs. Decoders wrap them with the
// packet type; test with errors.Is.
var (
	// ErrShort: a body ends before a field it must hold.
	ErrShort = errors.New("wukongim: body too short")
	// ErrBadString: a string's int16 length is negative.
	ErrBadString = errors.New("wukongim: negative string length")
	// ErrStringTooLong: an encoder was given a string over MaxStringLen bytes.
	ErrStringTooLong = errors.New("wukongim: string longer than 32767 bytes")
	// ErrPayloadTooLarge: a SEND payload over MaxPayloadLen bytes.
	ErrPayloadTooLarge = errors.New("wukongim: SEND payload longer than 32767 bytes")
	// ErrFrameTooLarge: a remaining length over MaxRemainingLength.
	ErrFrameTooLarge = errors.New("wukongim: remaining length over 1 MiB")
	// ErrBadLength: a remaining-length varint with a fifth byte.
	ErrBadLength = errors.New("wukongim: malformed remaining length")
	// ErrUnknownType: packet type 0 or above 12.
	ErrUnknownType = errors.New("wukongim: unknown packet type")
)

// SplitFrame cuts the first frame off a byte stream. It returns the packet
// type, the header's flag nibble, the body (aliasing buf, capacity clipped)
// and n, the bytes the frame takes. n == 0 with a nil error means buf holds
// no whole frame yet: read more and call again with the bytes appended.
//
// PING and PONG are one byte with no length (§2). Every other type has a
// remaining length of 1–4 bytes, least-significant 7 bits first; a length
// over MaxRemainingLength is ErrFrameTooLarge (reported as soon as the bytes
// seen prove it), a fifth length byte ErrBadLength, a type of 0 or above 12
// ErrUnknownType. After an error the stream cannot be resynchronised.
func SplitFrame(buf []byte) (t PacketType, flags uint8, body []byte, n int, err error) {
	if len(buf) == 0 {
		return 0, 0, nil, 0, nil
	}
	t, flags = PacketType(buf[0]>>4), buf[0]&0x0f
	if t == TypePing || t == TypePong {
		return t, flags, nil, 1, nil
	}
	if !t.Valid() {
		return t, flags, nil, 0, ErrUnknownType
	}
	body, n, err = varlen.Split(buf, MaxRemainingLength, ErrFrameTooLarge, ErrBadLength)
	return t, flags, body, n, err
}

// AppendHeader appends a frame header: the type and flag nibble, then the
// remaining length bodyLen. For PING and PONG it appends the single byte
// the whole frame is (GoProto writes no flags there).
//
// GoProto writes no length byte at all for an empty body, which its own
// decoder would then misread; no real packet is empty, and this writes 0x00,
// the form every decoder reads.
func AppendHeader(dst []byte, t PacketType, flags uint8, bodyLen int) ([]byte, error) {
	if t == TypePing || t == TypePong {
		return append(dst, byte(t)<<4), nil
	}
	if !t.Valid() {
		return dst, ErrUnknownType
	}
	if bodyLen < 0 || bodyLen > MaxRemainingLength {
		return dst, ErrFrameTooLarge
	}
	return varlen.Append(append(dst, byte(t)<<4|flags&0x0f), bodyLen), nil
}

// AppendPing appends a PING frame (0x70).
func AppendPing(dst []byte) []byte { return append(dst, PingByte) }

// AppendPong appends a PONG frame (0x80).
func AppendPong(dst []byte) []byte { return append(dst, PongByte) }
