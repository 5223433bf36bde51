package core

import (
	"sync"
	"time"
)

// Outlet is a protocol front's connection as the core sees it.
type Outlet interface {
	// Deliver queues p to be written no earlier than at; false means the
	// connection is closed or its queue is full (it is then being closed).
	Deliver(p *Push, at time.Time) bool
	// Kick tells the client another login replaced it, then closes.
	Kick()
	// Close drops the connection; false when it was already ending (the
	// client said goodbye first, or another drop won).
	Close() bool
}

// Session is one logged-in connection.
type Session struct {
	User     string
	Platform int
	Token    string
	out      Outlet

	mu   sync.Mutex
	held map[string]*heldPush // per conversation: a push held back by the reorder fault
}

type heldPush struct {
	p      *Push
	at     time.Time
	sender string
	timer  *time.Timer
}

// NewSession wraps a front's connection.
func NewSession(userID string, platform int, token string, out Outlet) *Session {
	return &Session{User: userID, Platform: platform, Token: token, out: out}
}

// Attach registers a logged-in session. Like OpenIM's default multi-login
// policy, it replaces an earlier session of the same user and platform; the
// earlier one is kicked (2002) when it logged in with another token.
func (c *Core) Attach(s *Session) *Error {
	c.mu.Lock()
	if c.conns >= c.cfg.MaxConns {
		c.mu.Unlock()
		return errf(CodeConnOverMax, "ConnOverMaxNumLimit", "%d connections", c.conns)
	}
	byPlatform := c.online[s.User]
	if byPlatform == nil {
		byPlatform = map[int]*Session{}
		c.online[s.User] = byPlatform
	}
	old := byPlatform[s.Platform]
	if old == nil {
		c.conns++
	}
	byPlatform[s.Platform] = s
	c.metrics.onlineUsers.Set(float64(len(c.online)))
	c.metrics.connections.Set(float64(c.conns))
	c.mu.Unlock()
	if old != nil {
		if old.Token != s.Token {
			old.out.Kick()
		} else {
			old.out.Close()
		}
	}
	return nil
}

// Detach forgets a session that ended.
func (c *Core) Detach(s *Session) {
	c.mu.Lock()
	if byPlatform := c.online[s.User]; byPlatform[s.Platform] == s {
		delete(byPlatform, s.Platform)
		c.conns--
		if len(byPlatform) == 0 {
			delete(c.online, s.User)
		}
	}
	c.metrics.onlineUsers.Set(float64(len(c.online)))
	c.metrics.connections.Set(float64(c.conns))
	c.mu.Unlock()
	s.mu.Lock()
	for conv, h := range s.held {
		h.timer.Stop()
		delete(s.held, conv)
	}
	s.mu.Unlock()
}

// deliver pushes p to one session, applying the faults to every recipient
// but the sender. Called with the conversation locked, so pushes of one
// conversation reach each session in seq order unless a fault says otherwise.
func (c *Core) deliver(s *Session, p *Push, toSender bool, kind string) {
	f := c.faults
	at := time.Now()
	if toSender {
		// The sender's own copy is never faulted, but must not overtake a
		// push of this conversation held for the sender as a recipient.
		s.mu.Lock()
		s.releaseLocked(p.Msg.ConvID)
		s.out.Deliver(p, at)
		s.mu.Unlock()
		return
	}
	if f.skipPush() {
		c.metrics.faultSkipped.WithLabelValues(kind).Inc()
		return
	}
	if d := f.cfg.Delay; d > 0 {
		at = at.Add(d)
		c.metrics.faultDelayed.WithLabelValues(kind).Inc()
	}
	dup := f.duplicate()
	s.mu.Lock()
	conv, sender := p.Msg.ConvID, p.Msg.SendID
	if h := s.held[conv]; h != nil {
		delete(s.held, conv)
		h.timer.Stop()
		if h.sender == sender {
			// The next message of the same sender and conversation overtakes
			// the held one: the receiver sees them swapped.
			ok := s.out.Deliver(p, at) && s.out.Deliver(h.p, h.at)
			if ok {
				c.metrics.faultReordered.WithLabelValues(kind).Inc()
			}
			s.mu.Unlock()
			c.duplicateTo(s, p, at, dup, kind)
			return
		}
		s.out.Deliver(h.p, h.at) // another sender: release in order, nothing reordered
	}
	if f.reorder() {
		if s.held == nil {
			s.held = map[string]*heldPush{}
		}
		h := &heldPush{p: p, at: at, sender: sender}
		h.timer = time.AfterFunc(f.cfg.ReorderHold, func() { s.release(conv, h) })
		s.held[conv] = h
		s.mu.Unlock()
		return // a held push is not also duplicated
	}
	s.out.Deliver(p, at)
	s.mu.Unlock()
	c.duplicateTo(s, p, at, dup, kind)
}

func (c *Core) duplicateTo(s *Session, p *Push, at time.Time, dup bool, kind string) {
	if dup && s.write(p, at) {
		c.metrics.faultDuplicated.WithLabelValues(kind).Inc()
	}
}

func (s *Session) write(p *Push, at time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Deliver(p, at)
}

func (s *Session) releaseLocked(conv string) {
	if h := s.held[conv]; h != nil {
		delete(s.held, conv)
		h.timer.Stop()
		s.out.Deliver(h.p, h.at)
	}
}

// release lets a held push go when no later message of its sender came
// within the hold time; it was then not reordered after all.
func (s *Session) release(conv string, h *heldPush) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[conv] == h {
		delete(s.held, conv)
		s.out.Deliver(h.p, h.at)
	}
}

// Outlet returns the connection the session writes to.
func (s *Session) Outlet() Outlet { return s.out }

// Backend is what a protocol front needs from the server: the Core itself,
// or a link to a Core in another process (package cluster).
type Backend interface {
	CheckLogin(token, userID string, platform int) *Error
	Attach(s *Session) *Error
	Detach(s *Session)
	Send(m *Message) (*Message, *Error)
	MaxSeqs(userID string) map[string]int64
	Pull(userID, convID string, begin, end, num int64) (msgs []*Message, isEnd bool, endSeq int64)
}

var _ Backend = (*Core)(nil)
