package core

import (
	"slices"
	"sync"
	"time"
)

// Outlet is a front end's connection as the core sees it.
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
	User   string
	Device int // the client's platform or device class, numbered as its protocol does
	Token  string
	// SameTokenJoins makes a login with the token of sessions already on
	// the user's device join them, both kept and pushed to, instead of
	// replacing them; sessions of another token are still kicked. This is
	// OpenIM's default multi-login policy (share.yml multiLogin.policy 1,
	// open-im-server internal/msggateway ws_server.go
	// multiTerminalLoginChecker). Set it before Attach.
	SameTokenJoins bool
	out            Outlet

	mu   sync.Mutex
	held map[ConvKey]*heldPush // per conversation: a push held back by the reorder fault
}

// NewSession wraps a front end's connection.
func NewSession(userID string, device int, token string, out Outlet) *Session {
	return &Session{User: userID, Device: device, Token: token, out: out}
}

// Outlet returns the connection the session writes to.
func (s *Session) Outlet() Outlet { return s.out }

// Attach registers a logged-in session. One session per user and device:
// earlier ones are replaced, kicked when they logged in with another token
// and closed when with the same one, unless s.SameTokenJoins keeps those of
// the same token beside it.
func (c *Core) Attach(s *Session) error {
	c.mu.Lock()
	if c.conns >= c.cfg.MaxConns {
		c.mu.Unlock()
		return ErrTooManyConns.With("%d connections", c.conns)
	}
	byDevice := c.online[s.User]
	if byDevice == nil {
		byDevice = map[int][]*Session{}
		c.online[s.User] = byDevice
	}
	var kept, gone []*Session
	for _, o := range byDevice[s.Device] {
		if s.SameTokenJoins && o.Token == s.Token {
			kept = append(kept, o)
		} else {
			gone = append(gone, o)
		}
	}
	byDevice[s.Device] = append(kept, s)
	c.indexSessionsLocked(s.User)
	if u := c.users[s.User]; u != nil && !u.everOn {
		u.everOn = true
		for k, n := range u.owedLost {
			if n > 0 {
				c.metrics.faultLostDeliv[k].Add(float64(n))
			}
		}
		u.owedLost = [lastKind + 1]int{}
	}
	c.conns += 1 - len(gone)
	c.metrics.setOnline(len(c.online), c.conns)
	c.mu.Unlock()
	for _, o := range gone {
		if o.Token != s.Token {
			o.out.Kick()
		} else {
			o.out.Close()
		}
	}
	return nil
}

// Detach forgets a session that ended, handing the outlet what the reorder
// fault still held for it.
func (c *Core) Detach(s *Session) {
	c.mu.Lock()
	byDevice := c.online[s.User]
	if list := byDevice[s.Device]; slices.Contains(list, s) {
		if len(list) == 1 {
			delete(byDevice, s.Device)
		} else {
			byDevice[s.Device] = slices.DeleteFunc(slices.Clone(list), func(o *Session) bool { return o == s })
		}
		c.conns--
		if len(byDevice) == 0 {
			delete(c.online, s.User)
		}
		c.indexSessionsLocked(s.User)
	}
	c.metrics.setOnline(len(c.online), c.conns)
	c.mu.Unlock()
	// Pushes held by the reorder fault go to the outlet rather than
	// nowhere: an ended connection of most front ends drops them (Deliver
	// is a no-op there), one that keeps a feed files them for the next
	// login, as a real server's store would.
	s.mu.Lock()
	for k, h := range s.held {
		h.timer.Stop()
		delete(s.held, k)
		s.out.Deliver(h.p, h.at)
	}
	s.mu.Unlock()
}

// indexSessionsLocked lists user's sessions anew in c.sessions.
func (c *Core) indexSessionsLocked(user string) {
	var all []*Session
	for _, list := range c.online[user] {
		all = append(all, list...)
	}
	if len(all) == 0 {
		delete(c.sessions, user)
	} else {
		c.sessions[user] = all
	}
}

// OnlineDevices lists the devices a user has sessions on, ascending.
func (c *Core) OnlineDevices(userID string) []int {
	c.mu.RLock()
	out := make([]int, 0, len(c.online[userID]))
	for d := range c.online[userID] {
		out = append(out, d)
	}
	c.mu.RUnlock()
	slices.Sort(out)
	return out
}

// Backend is what a front end's gateway needs from the server: the Core
// itself, or a link to a Core in another process (package cluster).
type Backend interface {
	CheckLogin(token, userID string, device int) error
	Attach(s *Session) error
	Detach(s *Session)
	Send(m *Message) (*Message, error)
	MaxSeqs(userID string) map[ConvKey]int64
	Pull(userID string, k ConvKey, begin, end, num int64) (Page, error)
}

var _ Backend = (*Core)(nil)
