package wildfire

import (
	"bytes"
	"compress/gzip"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// onPull answers MP (wildfire.md §5.6): PullMessageRequest{id, type} gives
// the messages of that feed after seq id, in seq order, as many as fit in
// MaxPullBytes (one at least); current is the seq of the last one given,
// or the head when none is after id; head is the feed's newest seq. The
// feed is first trimmed up to id: the client says it has those. Types
// other than 0 (normal) and 1 (chatroom) are 251. stall: leave it
// unanswered (the core's stall-pulls fault).
func (c *conn) onPull(plain []byte) (code wire.ErrorCode, result []byte, stall bool) {
	id, typ, ok := parsePull(plain)
	if !ok {
		return wire.CodeInvalidData, nil, false
	}
	if typ != int64(feedNormal) && typ != int64(feedRoom) {
		return wire.CodeInvalidParameter, nil, false
	}
	limit := c.f.MaxPullBytes
	fd := c.feed
	fd.mu.Lock()
	q := &fd.q[typ]
	trimmed := q.trim(id)
	msgs, size := c.pulled[:0], 0
	for _, m := range q.msgs {
		n := entrySize(m)
		if len(msgs) > 0 && size+n > limit {
			break
		}
		msgs, size = append(msgs, m), size+n
	}
	head := q.head
	current := head
	if len(msgs) > 0 {
		current = head - int64(len(q.msgs)) + int64(len(msgs))
	}
	fd.mu.Unlock()
	if c.f.c.StallPull(len(msgs)) {
		clear(msgs)
		c.pulled = msgs[:0]
		c.f.Metrics.trimmed(trimmed)
		return 0, nil, true
	}

	b := c.plain[:0]
	for _, m := range msgs {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(entrySize(m)))
		b = append(b, stored(m)...)
		b = protowire.AppendTag(b, 5, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(m.Time))
	}
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(current))
	b = protowire.AppendTag(b, 3, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(head))
	clear(msgs)
	c.pulled = msgs[:0]
	if cap(b) > keepBuf {
		c.plain = nil
	} else {
		c.plain = b
	}
	mt := c.f.Metrics
	mt.pulls[typ].Inc()
	mt.Pulled(len(msgs))
	mt.trimmed(trimmed)
	return wire.CodeSuccess, b, false
}

// entrySize is the encoded size of a pulled pb.Message: what the payload
// keeps, and server_timestamp.
func entrySize(m *core.Message) int {
	return len(m.Payload) - len(payloadMagic) + 1 + protowire.SizeVarint(uint64(m.Time))
}

// parsePull reads a PullMessageRequest: id and type are required.
func parsePull(b []byte) (id, typ int64, ok bool) {
	var hasID, hasType bool
	for len(b) > 0 {
		num, wt, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, 0, false
		}
		b = b[n:]
		if (num == 1 || num == 2) && wt == protowire.VarintType {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return 0, 0, false
			}
			b = b[n:]
			if num == 1 {
				id, hasID = int64(v), true
			} else {
				typ, hasType = int64(int32(v)), true
			}
			continue
		}
		n = protowire.ConsumeFieldValue(num, wt, b)
		if n < 0 {
			return 0, 0, false
		}
		b = b[n:]
	}
	return id, typ, hasID && hasType
}

var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// gzipped compresses a result for a level-6 client (code 255).
func gzipped(b []byte) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(b)/4 + 64)
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&out)
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
