package netloop

// Framer takes the first frame off a byte stream: n is how many bytes it
// took, 0 when the stream does not hold a whole frame yet.
type Framer interface {
	Frame(stream []byte) (n int, err error)
}

// Frames reassembles frames that span reads: what is left of a read that
// is not a whole frame waits for the next one.
type Frames struct{ pending []byte }

// Feed hands f every whole frame of what was pending and b, in order.
func (fr *Frames) Feed(b []byte, f Framer) error {
	if len(fr.pending) > 0 {
		fr.pending = append(fr.pending, b...)
		b = fr.pending
	}
	for len(b) > 0 {
		n, err := f.Frame(b)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		b = b[n:]
	}
	fr.pending = append(fr.pending[:0], b...)
	if len(fr.pending) == 0 && cap(fr.pending) > 64<<10 {
		fr.pending = nil // one large answer need not stay with the connection
	}
	return nil
}
