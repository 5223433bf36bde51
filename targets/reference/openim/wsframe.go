package openim

import "encoding/binary"

// appendWSFrame appends a whole message of gorilla's messageType
// (BinaryMessage, TextMessage) as one final, unmasked frame (RFC 6455
// §5.2): the bytes gorilla's WriteMessage puts on a server's socket with
// compression off, so that several messages can go out in one write.
func appendWSFrame(dst []byte, messageType int, payload []byte) []byte {
	dst = append(dst, 0x80|byte(messageType))
	switch n := len(payload); {
	case n <= 125:
		dst = append(dst, byte(n))
	case n <= 0xffff:
		dst = append(dst, 126)
		dst = binary.BigEndian.AppendUint16(dst, uint16(n))
	default:
		dst = append(dst, 127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	return append(dst, payload...)
}
