package core

import "time"

type heldPush struct {
	p      *Push
	at     time.Time
	sender string
	timer  *time.Timer
}

// Storer is an Outlet that keeps a per-user feed clients pull from (a
// notify-and-pull protocol such as Wildfire's): a push the skip-push fault
// leaves out is handed to Store, which files it without telling the client,
// so that the client finds it at its next pull as a real server's store
// would have it. Outlets that are not Storers simply miss the push.
type Storer interface {
	Store(p *Push)
}

// deliver pushes p, sent at, to one session, applying the faults to every
// recipient but the sender. Called with the conversation locked, so pushes
// of one conversation reach each session in seq order unless a fault says
// otherwise.
func (c *Core) deliver(s *Session, p *Push, at time.Time, toSender bool) {
	f := c.faults
	conv, sender, kind := p.Msg.Conv, p.Msg.Sender, p.Msg.Conv.Kind
	if toSender {
		// The sender's own copy is never faulted, but must not overtake a
		// push of this conversation held for the sender as a recipient.
		s.mu.Lock()
		s.releaseLocked(conv)
		s.out.Deliver(p, at)
		s.mu.Unlock()
		return
	}
	if f.skipPush() {
		c.metrics.faultSkipped[kind].Inc()
		if st, ok := s.out.(Storer); ok {
			// Stored where the client pulls from, after what is held for
			// this conversation (released first, in order: not reordered).
			s.mu.Lock()
			s.releaseLocked(conv)
			st.Store(p)
			s.mu.Unlock()
		}
		return
	}
	if d := f.cfg.Delay; d > 0 {
		at = at.Add(d)
		c.metrics.faultDelayed[kind].Inc()
	}
	dup := f.duplicate()
	s.mu.Lock()
	if h := s.held[conv]; h != nil {
		delete(s.held, conv)
		h.timer.Stop()
		if h.sender == sender {
			// The next message of the same sender and conversation overtakes
			// the held one: the receiver sees them swapped.
			// Both, whatever the first answers: a front end that keeps
			// feeds files the held one even on an ended connection.
			first := s.out.Deliver(p, at)
			if late := f.cfg.ReorderLate; late > 0 {
				// Written late, past the receiver's gap grace: counted when
				// it is written, as a reorder is.
				time.AfterFunc(late, func() {
					if s.write(h.p, h.at) && first {
						c.metrics.faultReordered[kind].Inc()
					}
				})
			} else if second := s.out.Deliver(h.p, h.at); first && second {
				c.metrics.faultReordered[kind].Inc()
			}
			s.mu.Unlock()
			c.duplicateTo(s, p, at, dup)
			return
		}
		s.out.Deliver(h.p, h.at) // another sender: release in order, nothing reordered
	}
	if f.reorder() {
		if s.held == nil {
			s.held = map[ConvKey]*heldPush{}
		}
		h := &heldPush{p: p, at: at, sender: sender}
		h.timer = time.AfterFunc(f.cfg.ReorderHold, func() { s.release(conv, h) })
		s.held[conv] = h
		s.mu.Unlock()
		return // a held push is not also duplicated
	}
	s.out.Deliver(p, at)
	s.mu.Unlock()
	c.duplicateTo(s, p, at, dup)
}

func (c *Core) duplicateTo(s *Session, p *Push, at time.Time, dup bool) {
	if dup && s.write(p, at) {
		c.metrics.faultDuplicated[p.Msg.Conv.Kind].Inc()
	}
}

func (s *Session) write(p *Push, at time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Deliver(p, at)
}

func (s *Session) releaseLocked(k ConvKey) {
	if h := s.held[k]; h != nil {
		delete(s.held, k)
		h.timer.Stop()
		s.out.Deliver(h.p, h.at)
	}
}

// release lets a held push go when no later message of its sender came
// within the hold time; it was then not reordered after all.
func (s *Session) release(k ConvKey, h *heldPush) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[k] == h {
		delete(s.held, k)
		s.out.Deliver(h.p, h.at)
	}
}
