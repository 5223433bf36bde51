package core

import "time"

// The batch fault, as open-im-server v3.8's msgtransfer does it: the
// message service answers a send once the message is queued (Kafka), and
// msgtransfer takes what was queued in batches (every 100 ms), each
// conversation's part of a batch at once; a part of more than 100 messages
// fails its insert ("message count exceeds limit, limit=100") and is
// dropped whole, with no seq, never stored and never pushed, while the
// consumer moves on (openim.md §8). Here a conversation's messages are
// queued until the end of the current window of BatchWindow (windows
// aligned on the clock, so every conversation's batch ends together), then
// stored and pushed in order, or dropped when there are more than
// BatchDrop of them. The drop is logged as the real server logs it.

// pending is one conversation's messages of the current window.
type pending struct {
	msgs    []*Message
	members [][]string // each one's conversation members when it was sent
}

// batch queues m, acknowledged, for its conversation's batch.
func (c *Core) batch(cv *Conv, m *Message, members []string) {
	w := c.faults.cfg.BatchWindow
	cv.bmu.Lock()
	if cv.pending == nil {
		cv.pending = &pending{}
		time.AfterFunc(w-time.Duration(time.Now().UnixNano())%w, func() { c.flush(cv) })
	}
	cv.pending.msgs = append(cv.pending.msgs, m)
	cv.pending.members = append(cv.pending.members, members)
	cv.bmu.Unlock()
}

// flush stores a conversation's batch, or drops it when it is too large.
func (c *Core) flush(cv *Conv) {
	cv.bmu.Lock()
	b := cv.pending
	cv.pending = nil
	cv.bmu.Unlock()
	if b == nil {
		return
	}
	kind := cv.key.Kind
	if len(b.msgs) > c.faults.cfg.BatchDrop {
		for i, m := range b.msgs {
			if m.AckLate > 0 {
				// Answered late: unanswered to its client, which expects none
				// of its deliveries. Counted once, as a late answer, not lost.
				c.metrics.faultLateAcks[kind].Inc()
				continue
			}
			c.countLost(kind, m.Sender, b.members[i], len(b.members[i])-1)
		}
		c.metrics.faultBatchDrops.Inc()
		c.log.Warn("batch data insert to redis err", "err", "message count exceeds limit", "limit", c.faults.cfg.BatchDrop,
			"conversation", cv.key.ID, "count", len(b.msgs))
		return
	}
	for _, m := range b.msgs {
		r, err := c.route(m)
		if err == nil {
			err = c.commit(m, r)
		}
		if err != nil {
			c.log.Warn("batch: a queued message could not be stored", "conversation", cv.key.ID, "err", err)
		}
	}
}
