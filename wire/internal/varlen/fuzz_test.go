package varlen

import (
	"bytes"
	"testing"
)

// FuzzSplit reads arbitrary bytes as a frame's remaining length under a
// limit: no panic; an error or an incomplete frame returns nothing; a whole
// frame's body is the frame's tail within the limit, its length re-encodes
// in no more bytes than it took, and the frame splits the same alone and not
// at all one byte short.
func FuzzSplit(f *testing.F) {
	for _, n := range []int{0, 99, 127, 128, 220, 16383, 16384} {
		f.Add(append(append([]byte{0x30}, Append(nil, n)...), make([]byte, n)...), 1<<22)
	}
	f.Add([]byte{0x30, 0x80, 0x80, 0x80, 0x80, 0x01}, 1<<30)
	f.Add([]byte{0x30, 0xff, 0xff, 0xff, 0x7f}, 256<<10)
	f.Add([]byte{0x30, 0xff, 0xff}, 1000)
	f.Add([]byte{0x30, 0x80, 0x00}, 10) // an overlong zero
	f.Add([]byte{0x30}, 0)
	f.Fuzz(func(t *testing.T, buf []byte, limit int) {
		if limit < 0 {
			limit = -(limit + 1)
		}
		limit %= 1 << 28
		body, n, err := Split(buf, limit, errBig, errBad)
		if err != nil || n == 0 {
			if n != 0 || body != nil || (err != nil && err != errBig && err != errBad) {
				t.Fatalf("n=%d body=%d err=%v", n, len(body), err)
			}
			if err == nil && len(buf) > 1+MaxBytes && buf[1]&buf[2]&buf[3]&buf[4]&0x80 != 0 {
				t.Fatalf("%x: five length bytes taken for an incomplete frame", buf[:1+MaxBytes])
			}
			return
		}
		head := n - len(body)
		if n > len(buf) || len(body) > limit || head < 2 || head > 1+MaxBytes || cap(body) != len(body) {
			t.Fatalf("n=%d len=%d body=%d head=%d cap=%d limit=%d", n, len(buf), len(body), head, cap(body), limit)
		}
		if !bytes.Equal(body, buf[head:n]) {
			t.Fatal("body is not the frame's tail")
		}
		if enc := Append(nil, len(body)); len(enc) > head-1 || len(enc) != Len(len(body)) {
			t.Fatalf("length %d re-encodes as %x (Len %d) from %x", len(body), enc, Len(len(body)), buf[1:head])
		}
		if b2, n2, err := Split(buf[:n], limit, errBig, errBad); err != nil || n2 != n || !bytes.Equal(b2, body) {
			t.Fatalf("the frame alone: n=%d %v", n2, err)
		}
		if b2, n2, err := Split(buf[:n-1], limit, errBig, errBad); err != nil || n2 != 0 || b2 != nil {
			t.Fatalf("one byte short: n=%d %v", n2, err)
		}
	})
}

// FuzzAppend encodes any length the protocols allow: the encoding is Len
// bytes and splits back to that length.
func FuzzAppend(f *testing.F) {
	for _, n := range []int{0, 127, 128, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<28 - 1} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, n int) {
		if n < 0 {
			n = -(n + 1)
		}
		n %= 1 << 28
		enc := Append([]byte{0x30}, n)
		if len(enc)-1 != Len(n) || len(enc)-1 > MaxBytes {
			t.Fatalf("%d: %x, Len %d", n, enc, Len(n))
		}
		// Split needs the body; a long one is checked through its limit.
		if _, _, err := Split(enc, n-1, errBig, errBad); n > 0 && err != errBig {
			t.Fatalf("%d over a limit of %d: %v", n, n-1, err)
		}
		if n <= 1<<16 {
			frame := append(enc, make([]byte, n)...)
			if body, m, err := Split(frame, n, errBig, errBad); err != nil || m != len(frame) || len(body) != n {
				t.Fatalf("%d: m=%d body=%d %v", n, m, len(body), err)
			}
		}
	})
}
