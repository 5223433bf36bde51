package wukongim

import (
	"cmp"
	"slices"
	"sync"
	"time"

	wire "github.com/imbench/imbench/wire/wukongim"
)

// retryQueue holds a connection's persisted RECVs until their RECVACK; one
// not acknowledged within RetryInterval is written again, the very same
// frame (same messageSeq, no DUP flag), at most RetryMax times
// (wukongim.md §5, §13).
type retryQueue struct {
	mu      sync.Mutex
	entries map[int64]*retryEntry // by message id
	timer   *time.Timer
	stopped bool
}

type retryEntry struct {
	id    int64
	seq   uint32
	frame []byte
	tries int
	due   time.Time
}

// track queues a RECV just written. A second copy of one already waiting
// (a duplicated push) changes nothing.
func (c *conn) track(id int64, seq uint32, frame []byte) {
	q := &c.retry
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped || q.entries[id] != nil {
		return
	}
	if q.entries == nil {
		q.entries = map[int64]*retryEntry{}
	}
	every := c.g.f.RetryInterval
	q.entries[id] = &retryEntry{id: id, seq: seq, frame: slices.Clone(frame), due: time.Now().Add(every)}
	c.g.f.Metrics.retryQueue.Add(1)
	if q.timer == nil {
		q.timer = time.AfterFunc(every, c.retryDue)
	}
}

// ack takes a message off the queue, unless the RECVACK says NoPersist
// (the real server keeps it then).
func (c *conn) ack(a wire.Recvack) {
	if a.Flags&wire.FlagNoPersist != 0 {
		return
	}
	q := &c.retry
	q.mu.Lock()
	defer q.mu.Unlock()
	if e := q.entries[a.MessageID]; e != nil && e.seq == a.MessageSeq {
		delete(q.entries, a.MessageID)
		c.g.f.Metrics.retryQueue.Add(-1)
	}
}

// retryDue writes again what is due, forgets what was tried enough, and
// sets the timer for the next due.
func (c *conn) retryDue() {
	q := &c.retry
	f := c.g.f
	q.mu.Lock()
	if q.stopped {
		q.mu.Unlock()
		return
	}
	now := time.Now()
	var again []*retryEntry
	var next time.Time
	for id, e := range q.entries {
		if e.due.After(now) {
			if next.IsZero() || e.due.Before(next) {
				next = e.due
			}
			continue
		}
		if e.tries >= f.RetryMax {
			delete(q.entries, id)
			f.Metrics.retryQueue.Add(-1)
			continue
		}
		e.tries++
		e.due = now.Add(f.RetryInterval)
		if next.IsZero() || e.due.Before(next) {
			next = e.due
		}
		again = append(again, e)
	}
	q.timer = nil
	if !next.IsZero() {
		q.timer = time.AfterFunc(next.Sub(now), c.retryDue)
	}
	q.mu.Unlock()
	slices.SortFunc(again, func(a, b *retryEntry) int { return cmp.Compare(a.id, b.id) })
	for _, e := range again {
		if c.enqueue(frame{data: e.frame, resend: true, at: now}) {
			f.Metrics.retries.Inc()
		}
	}
}

func (c *conn) stopRetries() {
	q := &c.retry
	q.mu.Lock()
	defer q.mu.Unlock()
	q.stopped = true
	if q.timer != nil {
		q.timer.Stop()
	}
	c.g.f.Metrics.retryQueue.Add(-int64(len(q.entries)))
	q.entries = nil
}
