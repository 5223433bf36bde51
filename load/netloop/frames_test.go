package netloop

import "testing"

// lenFramer's frames are a length byte and that many bytes.
type lenFramer struct{ got []string }

func (f *lenFramer) Frame(s []byte) (int, error) {
	if len(s) < 1 || len(s) < 1+int(s[0]) {
		return 0, nil
	}
	f.got = append(f.got, string(s[1:1+s[0]]))
	return 1 + int(s[0]), nil
}

// Frames cut anywhere across reads come out whole and in order.
func TestFramesSpanReads(t *testing.T) {
	stream := []byte("\x03abc\x00\x05hello\x01z")
	for cut := 0; cut <= len(stream); cut++ {
		var fr Frames
		f := &lenFramer{}
		if err := fr.Feed(stream[:cut], f); err != nil {
			t.Fatal(err)
		}
		if err := fr.Feed(stream[cut:], f); err != nil {
			t.Fatal(err)
		}
		if len(f.got) != 4 || f.got[0] != "abc" || f.got[1] != "" || f.got[2] != "hello" || f.got[3] != "z" || len(fr.pending) != 0 {
			t.Fatalf("cut %d: %q, pending %q", cut, f.got, fr.pending)
		}
	}
}
