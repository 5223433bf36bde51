// Package varlen is the MQTT-style remaining length that frames both
// WuKongIM's WKProto and Wildfire's MQTT: 1–4 bytes, the least significant
// 7 bits first, 0x80 on every byte but the last.
package varlen

// MaxBytes is the longest encoding.
const MaxBytes = 4

// Split reads the remaining length that starts at buf[1] and returns the
// body after it and the whole frame's size. n == 0 with a nil error means
// buf holds no whole frame yet. A length over limit is tooLarge as soon as
// the bytes seen prove it; a fifth length byte is bad.
func Split(buf []byte, limit int, tooLarge, bad error) (body []byte, n int, err error) {
	var length, shift uint
	i := 1
	for {
		if i > MaxBytes {
			return nil, 0, bad
		}
		if i >= len(buf) {
			return nil, 0, nil
		}
		d := buf[i]
		i++
		length |= uint(d&0x7f) << shift
		if length > uint(limit) {
			return nil, 0, tooLarge
		}
		if d&0x80 == 0 {
			break
		}
		shift += 7
	}
	end := i + int(length)
	if len(buf) < end {
		return nil, 0, nil
	}
	return buf[i:end:end], end, nil
}

// Append appends n (0 ≤ n < 2^28) encoded.
func Append(dst []byte, n int) []byte {
	for {
		d := byte(n & 0x7f)
		n >>= 7
		if n == 0 {
			return append(dst, d)
		}
		dst = append(dst, d|0x80)
	}
}

// Len is the size of n's encoding.
func Len(n int) int {
	switch {
	case n < 1<<7:
		return 1
	case n < 1<<14:
		return 2
	case n < 1<<21:
		return 3
	}
	return 4
}
