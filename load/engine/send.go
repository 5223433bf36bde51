package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// ErrUnanswered wraps a driver's "no answer to a send within the timeout".
// Such a send is not counted failed: the server may have stored it and
// answered late, and its deliveries then arrive (Outbox.Unanswered).
var ErrUnanswered = errors.New("unanswered")

// SendResult counts one send phase of a session.
type SendResult struct {
	Planned    int `js:"planned"`
	Acked      int `js:"acked"`
	Failed     int `js:"failed"`
	Unanswered int `js:"unanswered"` // no answer within the timeout
	Unsent     int `js:"unsent"`     // still queued or not yet due when the phase ended
}

// Send sends the session's share of the plan's messages.
//
// Open streams: a message due at offset d of the plan's schedule is queued
// at start + d, so all sessions (and all processes given the same start)
// together follow the plan's pace. A user sends one message at a time, in
// order, waiting for the acknowledgement before the next; a message due
// while its sender is busy or offline waits its turn, and the lag is
// measured. Closed streams: each sender keeps its stream's InFlight
// messages in flight, the next sent as soon as one is acknowledged.
//
// Send returns when every message was acknowledged or failed, or at
// deadline after the plan's sending time; messages not sent by then fail,
// but for those of classes bounded by time, whose time was up.
func (s *Session) Send(start time.Time, deadline time.Duration) SendResult {
	s.sh.SetPhase("sending")
	s.sh.sendAt.CompareAndSwap(0, start.UnixNano())
	p := s.sh.Plan
	s.sh.meter.begin(start.Add(p.FirstDue()))
	s.sh.open.begin(start.Add(p.FirstDue()))
	var res SendResult
	for _, st := range p.Streams {
		res.Planned += int(st.PlannedFor(s.Lo, s.Hi))
	}
	ctx, cancel := context.WithDeadline(s.ctx, start.Add(sendingTime(p)).Add(deadline))
	defer cancel()  // also ends chatroom joins still to come
	s.work.Store(1) // the schedule below is one producer until it ends
	s.joinRooms(ctx, start)
	s.startClosed(start)
	if wait := time.Until(start); wait > 0 {
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
	for _, u := range s.closed {
		u.pump()
	}
	s.schedule(ctx, start)
	s.finish()
	select {
	case <-s.sendAll:
	case <-ctx.Done():
	}
	return s.endSend(res)
}

// sendingTime bounds the send phase: the plan's pace, or, with a closed
// class bounded by its counts alone, as long as a run may take.
func sendingTime(p *plan.Plan) time.Duration {
	for _, st := range p.Streams {
		if !st.Open() && st.Until == 0 {
			return maxSendingTime
		}
	}
	return p.Duration()
}

const maxSendingTime = 24 * time.Hour

// schedule queues the open streams' local messages as they fall due.
func (s *Session) schedule(ctx context.Context, start time.Time) {
	s.windows = make([]int, len(s.sh.Plan.Streams))
	for i, st := range s.sh.Plan.Streams {
		s.windows[i] = st.Window()
	}
	for m, off := range s.sh.Plan.Schedule() {
		if m.Sender < s.Lo || m.Sender >= s.Hi {
			continue
		}
		due := start.Add(off)
		if wait := time.Until(due); wait > time.Millisecond {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return
			}
		}
		u := s.users[m.Sender-s.Lo]
		s.work.Add(1)
		u.mu.Lock()
		u.queue = append(u.queue, sendItem{m: m, due: due, window: s.windows[s.sh.Plan.Convs[m.Conv].Class]})
		u.mu.Unlock()
		u.pump()
	}
}

// startClosed gives each local sender of a closed stream its cursor; each
// counts as a producer until its cursor runs out or its time ends.
func (s *Session) startClosed(start time.Time) {
	for class, st := range s.sh.Plan.Streams {
		if st.Open() {
			continue
		}
		var until time.Time
		if st.Until > 0 {
			until = start.Add(st.Until)
		}
		for u := s.Lo; u < s.Hi; u++ {
			c, ok := st.Cursor(u)
			if !ok {
				continue
			}
			usr := s.users[u-s.Lo]
			usr.mu.Lock()
			usr.cursor, usr.until, usr.limit, usr.cursorClass = c, until, st.InFlight, class
			usr.mu.Unlock()
			s.work.Add(1)
			s.closed = append(s.closed, usr)
		}
	}
}

// finish ends one unit of work: a message answered, or a producer done.
func (s *Session) finish() {
	if s.work.Add(-1) == 0 {
		s.allOnce.Do(func() { close(s.sendAll) })
	}
}

// endSend counts as unsent what is still queued, and what a closed class
// bounded by its counts had still to send, and reports the phase.
func (s *Session) endSend(res SendResult) SendResult {
	for _, u := range s.users {
		u.mu.Lock()
		left, cur, timed, class := u.queue, u.cursor, !u.until.IsZero(), u.cursorClass
		u.queue, u.cursor = nil, nil
		u.mu.Unlock()
		s.Tally.Unsent.Add(int64(len(left)))
		for _, it := range left {
			if c := s.sh.classCounter(int(s.sh.Plan.Convs[it.m.Conv].Class)); c != nil {
				c.unsent.Add(1)
			}
		}
		for cur != nil && !timed {
			if _, ok := cur.Next(); !ok {
				break
			}
			s.Tally.Unsent.Add(1)
			if c := s.sh.classCounter(class); c != nil {
				c.unsent.Add(1)
			}
		}
	}
	var acked, failed, unanswered int64
	for k := 0; k < verify.Kinds; k++ {
		acked += s.Tally.Acked[k].Load()
		failed += s.Tally.SendFailed[k].Load()
		unanswered += s.Tally.Unanswered[k].Load()
	}
	res.Acked, res.Failed, res.Unanswered, res.Unsent = int(acked), int(failed), int(unanswered), int(s.Tally.Unsent.Load())
	if n := res.Acked + res.Failed + res.Unanswered + res.Unsent; res.Planned < n {
		res.Planned = n // closed by time: what it got to send
	}
	return res
}

// next takes the user's next message: the head of its queue, or its closed
// cursor's next while its time lasts. Called with u.mu held.
func (u *User) next(now time.Time) (sendItem, bool) {
	if len(u.queue) > 0 {
		it := u.queue[0]
		u.queue = u.queue[1:]
		return it, true
	}
	if u.cursor == nil {
		return sendItem{}, false
	}
	if m, ok := u.cursor.Next(); ok && (u.until.IsZero() || now.Before(u.until)) {
		u.s.work.Add(1)
		return sendItem{m: m, due: now}, true
	}
	u.cursor = nil
	u.s.finish() // this producer is done
	return sendItem{}, false
}

// pump sends the user's next messages while it has room in flight. One
// goroutine pumps a user at a time, so messages leave in the order they
// were taken; a pump asked for meanwhile (an acknowledgement arriving) is
// done by the one under way.
func (u *User) pump() {
	u.mu.Lock()
	if u.pumping {
		u.repump = true
		u.mu.Unlock()
		return
	}
	u.pumping = true
	u.mu.Unlock()
	for {
		now := time.Now()
		u.mu.Lock()
		var it sendItem
		window := max(u.limit, 1)
		if len(u.queue) > 0 {
			window = max(window, u.queue[0].window) // a burst goes out back to back
		}
		ok := u.inflight < window && u.conn != nil
		if ok {
			it, ok = u.next(now)
		}
		if !ok {
			if u.repump {
				u.repump = false
				u.mu.Unlock()
				continue
			}
			u.pumping = false
			u.mu.Unlock()
			return
		}
		u.inflight++
		c, n := u.conn, u.inflight
		u.mu.Unlock()
		u.send(c, it, now, n)
	}
}

// send writes it; inFlight is the sender's messages unanswered with it.
func (u *User) send(c Conn, it sendItem, now time.Time, inFlight int) {
	s := u.s
	k := verify.KindIndex(s.sh.Plan.Convs[it.m.Conv].Kind)
	if lag := now.Sub(it.due).Microseconds(); lag > s.maxLagUs.Load() {
		s.maxLagUs.Store(lag)
	}
	text := verify.AppendBody(make([]byte, 0, max(s.sh.Plan.BodySize, 64)), s.sh.RunID, it.m.Sender,
		it.m.Conv, it.m.N, now.UnixMicro(), s.sh.Plan.BodySize)
	s.Tally.Sent[k].Add(1)
	s.sh.meter.add(now)
	class := int(s.sh.Plan.Convs[it.m.Conv].Class)
	if c := s.sh.classCounter(class); c != nil {
		c.add(now, int64(inFlight))
		if s.sh.Plan.Streams[class].Open() {
			s.sh.open.add(now)
		}
	}
	err := c.Send(it.m, text, now.UnixMicro()/1000, func(err error) { u.acked(it.m, k, now, err) })
	if err != nil {
		u.acked(it.m, k, now, fmt.Errorf("write: %w", err))
	}
}

// acked records the server's answer to a send and sends the next message.
func (u *User) acked(m plan.Msg, k int, sentAt time.Time, err error) {
	s := u.s
	if err == nil {
		s.Tally.Ack[k].Record(time.Since(sentAt))
		u.out.Ack(m.Conv, m.N)
		expected := s.sh.Plan.ExpectedRecipients(m)
		if k == verify.RoomIndex {
			expected = s.sh.rooms.present(m.Conv, sentAt.UnixMicro()) - 1 // the sender is in
		}
		s.Tally.Expected[k].Add(int64(expected))
		s.sh.Checker.AddExpected(&s.Tally, m, int64(expected))
		if w := s.sh.Plan.ExpectedWatchers(m); w > 0 {
			s.Tally.WatchExpected.Add(int64(w))
		}
		s.Tally.Dispatched.Add(int64(len(s.sh.Plan.Members(m.Conv))))
		s.Tally.Acked[k].Add(1)
	} else {
		if errors.Is(err, ErrUnanswered) {
			s.Tally.Unanswered[k].Add(1)
			u.out.Unanswered(m.Conv, m.N)
		} else {
			s.Tally.SendFailed[k].Add(1)
		}
		s.sh.warn("send of %s message %d in conversation %d: %v", s.sh.Plan.UserID(m.Sender), m.N, m.Conv, err)
	}
	u.mu.Lock()
	u.inflight--
	closed := u.limit > 0
	u.mu.Unlock()
	s.finish()
	if closed {
		// Acknowledgements arrive on a read loop that serves thousands of
		// connections; up to InFlight writes must not hold it.
		go u.pump()
		return
	}
	u.pump()
}
