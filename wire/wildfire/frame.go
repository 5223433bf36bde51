package wildfire

import (
	"errors"
	"strconv"

	"github.com/imbench/imbench/wire/internal/varlen"
)

// PacketType is the high nibble of an MQTT frame's first byte.
type PacketType uint8

// MQTT 3.1.1 packet types. Wildfire uses CONNECT, CONNACK, PUBLISH, PUBACK,
// PINGREQ, PINGRESP and DISCONNECT; the others frame normally but Decode
// refuses them with ErrUnsupported. 0 and 15 are invalid.
const (
	TypeConnect     PacketType = 1
	TypeConnack     PacketType = 2
	TypePublish     PacketType = 3
	TypePuback      PacketType = 4
	TypePubrec      PacketType = 5
	TypePubrel      PacketType = 6
	TypePubcomp     PacketType = 7
	TypeSubscribe   PacketType = 8
	TypeSuback      PacketType = 9
	TypeUnsubscribe PacketType = 10
	TypeUnsuback    PacketType = 11
	TypePingreq     PacketType = 12
	TypePingresp    PacketType = 13
	TypeDisconnect  PacketType = 14
)

var typeNames = [...]string{"", "CONNECT", "CONNACK", "PUBLISH", "PUBACK", "PUBREC", "PUBREL", "PUBCOMP",
	"SUBSCRIBE", "SUBACK", "UNSUBSCRIBE", "UNSUBACK", "PINGREQ", "PINGRESP", "DISCONNECT"}

// Valid reports a defined packet type (1–14).
func (t PacketType) Valid() bool { return t >= TypeConnect && t <= TypeDisconnect }

func (t PacketType) String() string {
	if t.Valid() {
		return typeNames[t]
	}
	return "UNKNOWN(" + strconv.Itoa(int(t)) + ")"
}

// PUBLISH fixed-header flags.
const (
	FlagRetain  uint8 = 0x01
	FlagQoSMask uint8 = 0x06
	FlagDUP     uint8 = 0x08
)

// The whole frames of the bodiless packets (§5.7).
var (
	pingreqFrame    = [2]byte{byte(TypePingreq) << 4, 0}
	pingrespFrame   = [2]byte{byte(TypePingresp) << 4, 0}
	disconnectFrame = [2]byte{byte(TypeDisconnect) << 4, 0}
)

// Errors of the framing and the packet codecs. Decoders wrap them with the
// packet type; test with errors.Is.
var (
	// ErrShort: a body ends before a field it must hold.
	ErrShort = errors.New("wildfire: body too short")
	// ErrTrailing: bytes after the last field of a packet that has no payload.
	ErrTrailing = errors.New("wildfire: bytes after the last field")
	// ErrFrameTooLarge: a remaining length over the limit.
	ErrFrameTooLarge = errors.New("wildfire: remaining length over the limit")
	// ErrBadLength: a remaining-length varint with a fifth byte.
	ErrBadLength = errors.New("wildfire: malformed remaining length")
	// ErrUnknownType: packet type 0 or 15.
	ErrUnknownType = errors.New("wildfire: unknown packet type")
	// ErrBadFlags: fixed-header flags the server's decoder refuses, e.g.
	// DISCONNECT with DUP or RETAIN (e8 00, e1 00; §5.7) or PUBLISH QoS 3.
	ErrBadFlags = errors.New("wildfire: illegal fixed-header flags")
	// ErrUnsupported: a valid MQTT type Wildfire does not use.
	ErrUnsupported = errors.New("wildfire: packet type not used by Wildfire")
	// ErrStringTooLong: a string or byte field over 65535 bytes.
	ErrStringTooLong = errors.New("wildfire: field longer than 65535 bytes")
	// ErrPacketID: packet id 0 where one is required.
	ErrPacketID = errors.New("wildfire: packet id 0")
	// ErrBadTopic: a PUBLISH topic with a wildcard ('+' or '#').
	ErrBadTopic = errors.New("wildfire: topic name with a wildcard")
	// ErrQoS: PUBLISH QoS other than 0, 1 or 2 given to an encoder.
	ErrQoS = errors.New("wildfire: QoS above 2")
	// ErrConnectFlags: CONNECT's reserved flag bit set at level 4 or 5.
	ErrConnectFlags = errors.New("wildfire: CONNECT reserved flag set")
	// ErrLevel5: a level-5 CONNECT, whose MQTT 5 properties this package
	// does not decode; the server itself sends no CONNACK when they are
	// missing (§14).
	ErrLevel5 = errors.New("wildfire: MQTT 5 CONNECT not supported")
	// ErrConnackFlags: CONNACK's first byte other than 0 or 1.
	ErrConnackFlags = errors.New("wildfire: CONNACK acknowledge flags other than session-present")
)

// ValidFlags reports whether the server's MQTT decoder accepts the
// fixed-header flags for the type: PUBLISH takes any but QoS 3; PUBREL,
// SUBSCRIBE and UNSUBSCRIBE need exactly 0x02; every other type 0.
func ValidFlags(t PacketType, flags uint8) bool {
	switch t {
	case TypePublish:
		return flags&FlagQoSMask != FlagQoSMask
	case TypePubrel, TypeSubscribe, TypeUnsubscribe:
		return flags == 0x02
	}
	return flags == 0
}

// SplitFrame cuts the first frame off a byte stream, accepting remaining
// lengths up to MaxRemainingLength. It returns the packet type, the flag
// nibble, the body (aliasing buf, capacity clipped) and n, the bytes the
// frame takes. n == 0 with a nil error means buf holds no whole frame yet:
// read more and call again with the bytes appended. Errors are final: the
// stream cannot be resynchronised and the server closes such a channel.
func SplitFrame(buf []byte) (t PacketType, flags uint8, body []byte, n int, err error) {
	return SplitFrameLimit(buf, MaxRemainingLength)
}

// SplitFrameLimit is SplitFrame with a remaining-length limit of its own; a
// server front end passes MaxClientRemainingLength, the real server's. A
// length over the limit is ErrFrameTooLarge as soon as the bytes seen prove
// it; a fifth length byte ErrBadLength; type 0 or 15 ErrUnknownType; flags
// ValidFlags refuses ErrBadFlags.
func SplitFrameLimit(buf []byte, limit int) (t PacketType, flags uint8, body []byte, n int, err error) {
	if len(buf) == 0 {
		return 0, 0, nil, 0, nil
	}
	t, flags = PacketType(buf[0]>>4), buf[0]&0x0f
	if !t.Valid() {
		return t, flags, nil, 0, ErrUnknownType
	}
	if !ValidFlags(t, flags) {
		return t, flags, nil, 0, ErrBadFlags
	}
	body, n, err = varlen.Split(buf, limit, ErrFrameTooLarge, ErrBadLength)
	return t, flags, body, n, err
}

// AppendHeader appends a fixed header: type and flags, then bodyLen as a
// remaining length (1–4 bytes, least significant 7 bits first).
func AppendHeader(dst []byte, t PacketType, flags uint8, bodyLen int) ([]byte, error) {
	if !t.Valid() {
		return dst, ErrUnknownType
	}
	if !ValidFlags(t, flags) {
		return dst, ErrBadFlags
	}
	if bodyLen < 0 || bodyLen > MaxRemainingLength {
		return dst, ErrFrameTooLarge
	}
	return varlen.Append(append(dst, byte(t)<<4|flags), bodyLen), nil
}

// AppendPingreq appends PINGREQ, c0 00; send one every keepAlive/2 (§12).
func AppendPingreq(dst []byte) []byte { return append(dst, pingreqFrame[:]...) }

// AppendPingresp appends PINGRESP, d0 00.
func AppendPingresp(dst []byte) []byte { return append(dst, pingrespFrame[:]...) }

// AppendDisconnect appends DISCONNECT, e0 00: the only form the server's
// decoder takes; the session survives it (§5.7).
func AppendDisconnect(dst []byte) []byte { return append(dst, disconnectFrame[:]...) }
