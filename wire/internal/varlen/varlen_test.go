package varlen

import (
	"bytes"
	"errors"
	"testing"
)

var errBig, errBad = errors.New("too large"), errors.New("bad")

// The lengths the protocols' references give (wukongim.md §2: 99 → 63,
// 220 → dc 01) and the edges of each size.
func TestAppendSplitAndLen(t *testing.T) {
	for _, c := range []struct {
		n   int
		enc []byte
	}{{0, []byte{0}}, {99, []byte{0x63}}, {127, []byte{0x7f}}, {128, []byte{0x80, 0x01}}, {220, []byte{0xdc, 0x01}},
		{16383, []byte{0xff, 0x7f}}, {16384, []byte{0x80, 0x80, 0x01}}, {1 << 21, []byte{0x80, 0x80, 0x80, 0x01}}} {
		if got := Append(nil, c.n); !bytes.Equal(got, c.enc) || Len(c.n) != len(c.enc) {
			t.Errorf("%d: %x (len %d), want %x", c.n, got, Len(c.n), c.enc)
		}
		frame := append(append([]byte{0x30}, c.enc...), make([]byte, c.n)...)
		body, n, err := Split(frame, 1<<22, errBig, errBad)
		if err != nil || n != len(frame) || len(body) != c.n {
			t.Errorf("%d: split %d %d %v", c.n, n, len(body), err)
		}
		if _, n, err := Split(frame[:len(frame)-1], 1<<22, errBig, errBad); n != 0 || err != nil {
			t.Errorf("%d: a cut frame gave %d %v", c.n, n, err)
		}
	}
	if _, _, err := Split([]byte{0x30, 0x80, 0x80, 0x80, 0x80, 0x01}, 1<<30, errBig, errBad); err != errBad {
		t.Errorf("a fifth length byte: %v", err)
	}
	if _, _, err := Split([]byte{0x30, 0xff, 0xff}, 1000, errBig, errBad); err != errBig {
		t.Errorf("over the limit before the length ends: %v", err)
	}
}
