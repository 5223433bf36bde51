// Package verify decides what every received message means for the test:
// a new delivery, a duplicate, an out-of-order arrival, a corrupted or foreign
// message; it keeps what each sender had acknowledged, and at the end
// reconciles expected against received deliveries exactly.
package verify

import (
	"bytes"
	"errors"
	"hash/crc32"
	"strconv"
)

// A benchmark message's text is
//
//	imb1|<run id>|<sender>|<conversation>|<n>|<create time µs>|<padding>|<crc32>
//
// sender and conversation are plan indexes, n counts the sender's messages in
// that conversation from 1, and the CRC (IEEE, hex) covers everything before
// the last '|'. The characters used never need escaping in JSON or protobuf.
const bodyMagic = "imb1|"

// Body is a parsed message text.
type Body struct {
	Run      []byte // aliases the input
	Sender   uint32
	Conv     uint32
	N        uint32
	CreateUs int64
}

// AppendBody writes a message text of at least size bytes.
func AppendBody(dst []byte, run string, sender, conv, n uint32, createUs int64, size int) []byte {
	start := len(dst)
	dst = append(dst, bodyMagic...)
	dst = append(dst, run...)
	dst = append(dst, '|')
	dst = strconv.AppendUint(dst, uint64(sender), 10)
	dst = append(dst, '|')
	dst = strconv.AppendUint(dst, uint64(conv), 10)
	dst = append(dst, '|')
	dst = strconv.AppendUint(dst, uint64(n), 10)
	dst = append(dst, '|')
	dst = strconv.AppendInt(dst, createUs, 10)
	dst = append(dst, '|')
	if pad := size - (len(dst) - start) - 9; pad > 0 {
		for i := 0; i < pad; i++ {
			dst = append(dst, 'x')
		}
	}
	sum := crc32.ChecksumIEEE(dst[start:])
	dst = append(dst, '|')
	const hexdigits = "0123456789abcdef"
	for shift := 28; shift >= 0; shift -= 4 {
		dst = append(dst, hexdigits[(sum>>uint(shift))&0xf])
	}
	return dst
}

var (
	// ErrForeign marks a text that is not a benchmark message at all.
	ErrForeign = errors.New("not an imbench message")
	// ErrCorrupt marks a benchmark message whose bytes changed on the way.
	ErrCorrupt = errors.New("corrupted imbench message")
)

// IsBody reports whether b looks like a benchmark message.
func IsBody(b []byte) bool { return bytes.HasPrefix(b, []byte(bodyMagic)) }

// ParseBody checks the CRC and parses the fields.
func ParseBody(b []byte) (Body, error) {
	if !IsBody(b) {
		return Body{}, ErrForeign
	}
	cut := bytes.LastIndexByte(b, '|')
	if cut < 0 || len(b)-cut-1 != 8 {
		return Body{}, ErrCorrupt
	}
	want, ok := parseHex32(b[cut+1:])
	if !ok || want != crc32.ChecksumIEEE(b[:cut]) {
		return Body{}, ErrCorrupt
	}
	f := b[len(bodyMagic):cut]
	var parts [6][]byte
	for i := 0; i < 5; i++ {
		j := bytes.IndexByte(f, '|')
		if j < 0 {
			return Body{}, ErrCorrupt
		}
		parts[i], f = f[:j], f[j+1:]
	}
	parts[5] = f // padding
	var out Body
	out.Run = parts[0]
	nums := [4]uint64{}
	for i := 1; i <= 4; i++ {
		v, ok := parseDigits(parts[i])
		if !ok {
			return Body{}, ErrCorrupt
		}
		nums[i-1] = v
	}
	if nums[0] > 1<<32-1 || nums[1] > 1<<32-1 || nums[2] > 1<<32-1 || nums[2] == 0 || nums[3] > 1<<62 {
		return Body{}, ErrCorrupt
	}
	out.Sender, out.Conv, out.N, out.CreateUs = uint32(nums[0]), uint32(nums[1]), uint32(nums[2]), int64(nums[3])
	return out, nil
}

// parseHex32 reads the checksum's 8 hex digits, either case, as
// strconv.ParseUint(s, 16, 32) would, without its string and its generality
// (a few percent of the generator's CPU at 200,000 deliveries a second).
func parseHex32(b []byte) (uint32, bool) {
	if len(b) != 8 {
		return 0, false
	}
	var v uint32
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint32(c)
	}
	return v, true
}

func parseDigits(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}
