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
//	i2|<run tag>|<sender>|<conversation>|<n>|<create time µs>|<padding>|<crc32>
//
// The run tag is RunTag of the run id; sender and conversation are plan
// indexes, n counts the sender's messages in that conversation from 1; the
// numbers are in base 36 and the CRC (IEEE, 7 base-36 digits) covers
// everything before the last '|'. The characters used never need escaping in
// JSON or protobuf. The text is as short as its fields allow because a server
// encrypts and signs it again for every recipient (WuKongIM), so its length
// is part of the server's cost per delivery: a typical text takes no more AES
// blocks than the vendor's tool's (docs/benchmark-method.md, "The server's
// cost").
const bodyMagic = "i2|"

const (
	tagDigits = 4 // run tag: 36^4 = 1,679,616 values
	crcDigits = 7 // 36^7 > 2^32
)

// RunTag is a run id's mark in its messages: 4 base-36 digits of its CRC.
// A message from another run with the same tag is still told apart by its
// users, which are the run's own.
func RunTag(run string) string {
	t := runTag([]byte(run))
	return string(t[:])
}

func runTag(run []byte) [tagDigits]byte {
	var t [tagDigits]byte
	appendFixed36(t[:0], uint64(crc32.ChecksumIEEE(run)), tagDigits)
	return t
}

// Body is a parsed message text.
type Body struct {
	Run      []byte // the run tag; aliases the input
	Sender   uint32
	Conv     uint32
	N        uint32
	CreateUs int64
}

// AppendBody writes a message text of at least size bytes for the run
// with this id.
func AppendBody(dst []byte, run string, sender, conv, n uint32, createUs int64, size int) []byte {
	t := runTag([]byte(run))
	return appendBody(dst, t[:], sender, conv, n, createUs, size)
}

func appendBody(dst, tag []byte, sender, conv, n uint32, createUs int64, size int) []byte {
	start := len(dst)
	dst = append(dst, bodyMagic...)
	dst = append(dst, tag...)
	dst = append(dst, '|')
	dst = strconv.AppendUint(dst, uint64(sender), 36)
	dst = append(dst, '|')
	dst = strconv.AppendUint(dst, uint64(conv), 36)
	dst = append(dst, '|')
	dst = strconv.AppendUint(dst, uint64(n), 36)
	dst = append(dst, '|')
	dst = strconv.AppendInt(dst, createUs, 36)
	dst = append(dst, '|')
	if pad := size - (len(dst) - start) - 1 - crcDigits; pad > 0 {
		for i := 0; i < pad; i++ {
			dst = append(dst, 'x')
		}
	}
	sum := crc32.ChecksumIEEE(dst[start:])
	dst = append(dst, '|')
	return appendFixed36(dst, uint64(sum), crcDigits)
}

const digits36 = "0123456789abcdefghijklmnopqrstuvwxyz"

// appendFixed36 writes v's last width base-36 digits, zero-padded.
func appendFixed36(dst []byte, v uint64, width int) []byte {
	n := len(dst)
	for i := 0; i < width; i++ {
		dst = append(dst, '0')
	}
	for i := n + width - 1; i >= n; i-- {
		dst[i] = digits36[v%36]
		v /= 36
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
	if cut < 0 || len(b)-cut-1 != crcDigits {
		return Body{}, ErrCorrupt
	}
	want, ok := parse36(b[cut+1:])
	if !ok || want != uint64(crc32.ChecksumIEEE(b[:cut])) {
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
	if len(parts[0]) != tagDigits {
		return Body{}, ErrCorrupt
	}
	if _, ok := parse36(parts[0]); !ok {
		return Body{}, ErrCorrupt
	}
	var out Body
	out.Run = parts[0]
	nums := [4]uint64{}
	for i := 1; i <= 4; i++ {
		v, ok := parse36(parts[i])
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

// parse36 reads lower-case base-36 digits as strconv.ParseUint(s, 36, 64)
// would for up to 12 of them, without its string and its generality (a few
// percent of the generator's CPU at 200,000 deliveries a second).
func parse36(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 12 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'z':
			c -= 'a' - 10
		default:
			return 0, false
		}
		v = v*36 + uint64(c)
	}
	return v, true
}
