package engine

import (
	"fmt"
	"time"

	"github.com/imbench/imbench/k6/im/plan"
	"github.com/imbench/imbench/k6/im/verify"
)

// SendResult counts one send phase of a session.
type SendResult struct {
	Planned int `js:"planned"`
	Acked   int `js:"acked"`
	Failed  int `js:"failed"`
}

// Send sends the session's share of the plan's messages: message k of the
// global order is due at start + k/rate, so all sessions (and all processes
// given the same start) together follow the plan's rate. A user sends one
// message at a time, in order, waiting for the acknowledgement before the
// next; a message due while its sender is busy or offline waits its turn.
// Send returns when every message was acknowledged or failed, or at
// deadline (messages not sent by then fail).
func (s *Session) Send(start time.Time, deadline time.Duration) SendResult {
	p := s.sh.Plan
	var res SendResult
	for _, m := range p.Messages {
		if m.Sender >= s.Lo && m.Sender < s.Hi {
			res.Planned++
		}
	}
	s.sendTotal.Store(int64(res.Planned))
	if res.Planned == 0 {
		return res
	}
	interval := float64(time.Second) / p.Rate
	stop := time.NewTimer(time.Until(start.Add(p.Duration()).Add(deadline)))
	defer stop.Stop()
	for k, m := range p.Messages {
		if m.Sender < s.Lo || m.Sender >= s.Hi {
			continue
		}
		due := start.Add(time.Duration(float64(k) * interval))
		if wait := time.Until(due); wait > time.Millisecond {
			select {
			case <-time.After(wait):
			case <-stop.C:
				return s.endSend(res)
			case <-s.ctx.Done():
				return s.endSend(res)
			}
		}
		u := s.users[m.Sender-s.Lo]
		u.mu.Lock()
		u.queue = append(u.queue, sendItem{m: m, due: due})
		u.mu.Unlock()
		u.pump()
	}
	select {
	case <-s.sendAll:
	case <-stop.C:
	case <-s.ctx.Done():
	}
	return s.endSend(res)
}

// endSend fails what is still queued and reports the phase.
func (s *Session) endSend(res SendResult) SendResult {
	for _, u := range s.users {
		u.mu.Lock()
		left := u.queue
		u.queue = nil
		u.mu.Unlock()
		for _, it := range left {
			s.Tally.SendFailed[verify.KindIndex(s.sh.Plan.Convs[it.m.Conv].Kind)].Add(1)
			s.sendDone.Add(1)
		}
	}
	var acked, failed int64
	for k := 0; k < verify.Kinds; k++ {
		acked += s.Tally.Acked[k].Load()
		failed += s.Tally.SendFailed[k].Load()
	}
	res.Acked, res.Failed = int(acked), int(failed)
	return res
}

// pump sends the user's next queued message if none is in flight.
func (u *User) pump() {
	s := u.s
	for {
		u.mu.Lock()
		if u.inflight || len(u.queue) == 0 || u.conn == nil {
			u.mu.Unlock()
			return
		}
		it := u.queue[0]
		u.queue = u.queue[1:]
		u.inflight = true
		c := u.conn
		u.mu.Unlock()

		k := verify.KindIndex(s.sh.Plan.Convs[it.m.Conv].Kind)
		now := time.Now()
		if lag := now.Sub(it.due).Microseconds(); lag > s.maxLagUs.Load() {
			s.maxLagUs.Store(lag)
		}
		text := verify.AppendBody(make([]byte, 0, max(s.sh.Plan.BodySize, 64)), s.sh.RunID, it.m.Sender,
			it.m.Conv, it.m.N, now.UnixMicro(), s.sh.Plan.BodySize)
		s.Tally.Sent[k].Add(1)
		s.sh.meter.add(now)
		err := c.Send(it.m, text, now.UnixMicro()/1000, func(err error) { u.acked(it.m, k, now, err) })
		if err == nil {
			return
		}
		u.acked(it.m, k, now, fmt.Errorf("write: %w", err))
	}
}

// acked records the server's answer to a send and sends the next message.
func (u *User) acked(m plan.Msg, k int, sentAt time.Time, err error) {
	s := u.s
	if err == nil {
		s.Tally.Ack[k].Record(time.Since(sentAt))
		u.out.Ack(m.Conv, m.N)
		s.Tally.Expected[k].Add(int64(s.sh.Plan.ExpectedRecipients(m)))
		s.Tally.Acked[k].Add(1)
	} else {
		s.Tally.SendFailed[k].Add(1)
		s.sh.warn("send of %s message %d in conversation %d: %v", s.sh.Plan.UserID(m.Sender), m.N, m.Conv, err)
	}
	u.mu.Lock()
	u.inflight = false
	u.mu.Unlock()
	if s.sendDone.Add(1) == s.sendTotal.Load() {
		close(s.sendAll)
	}
	u.pump()
}
