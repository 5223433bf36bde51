package openim

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// Codec turns envelopes into binary frame payloads and back: the envelope
// encoding, then gzip over the whole encoded envelope when the connection was
// opened with compression=gzip. Text frames (auth result, JSON ping) are never
// compressed and never pass through here.
type Codec struct {
	Envelope Envelope
	Gzip     bool
}

// Requests are a few hundred bytes: stateless deflate compresses them as
// well as level 1 without resetting a level-1 encoder's tables per frame.
// Readers are kept in a fixed free list, not a sync.Pool, which every GC
// empties and a busy generator collects often.
var (
	gzWriters = sync.Pool{New: func() any {
		w, _ := gzip.NewWriterLevel(nil, gzip.StatelessCompression)
		return w
	}}
	gzReaders = make(chan *gzip.Reader, 64)
	bufs      = sync.Pool{New: func() any { return new(bytes.Buffer) }}
)

// EncodeReq returns the frame payload for r.
func (c Codec) EncodeReq(r *Req) ([]byte, error) {
	raw, err := c.Envelope.AppendReq(make([]byte, 0, 128+len(r.Data)), r)
	if err != nil || !c.Gzip {
		return raw, err
	}
	return gzipBytes(raw)
}

// DecodeResp decodes one frame payload into r.
func (c Codec) DecodeResp(frame []byte, r *Resp) error {
	if !c.Gzip {
		return c.Envelope.DecodeResp(frame, r)
	}
	buf := bufs.Get().(*bytes.Buffer)
	defer bufs.Put(buf)
	if err := gunzipInto(buf, frame); err != nil {
		return err
	}
	return c.Envelope.DecodeResp(buf.Bytes(), r)
}

func gzipBytes(raw []byte) ([]byte, error) {
	out := bytes.NewBuffer(make([]byte, 0, len(raw)/2+32))
	w := gzWriters.Get().(*gzip.Writer)
	defer gzWriters.Put(w)
	w.Reset(out)
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func gunzipInto(buf *bytes.Buffer, frame []byte) error {
	buf.Reset()
	src := bytes.NewReader(frame)
	var zr *gzip.Reader
	var err error
	select {
	case zr = <-gzReaders:
		err = zr.Reset(src)
	default:
		zr, err = gzip.NewReader(src)
	}
	if err != nil {
		return fmt.Errorf("openim: gzip frame: %w", err)
	}
	defer func() {
		select {
		case gzReaders <- zr:
		default:
		}
	}()
	if _, err := io.Copy(buf, zr); err != nil {
		return fmt.Errorf("openim: gzip frame: %w", err)
	}
	return nil
}
