package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// Session is the users one VU drives: plan users [Lo, Hi).
type Session struct {
	sh     *Shared
	ctx    context.Context
	cancel context.CancelCauseFunc
	Lo, Hi uint32
	users  []*User
	Tally  verify.Tally
	Logins LoginCost // what the session's logins cost

	closing  atomic.Bool
	stopBeat chan struct{}
	beatDone chan struct{}

	work     atomic.Int64 // producers still sending and messages not yet answered
	sendAll  chan struct{}
	allOnce  sync.Once
	closed   []*User // senders of closed streams
	maxLagUs atomic.Int64
}

// NewSession opens a session for users [lo, hi) and starts its heartbeats.
func (sh *Shared) NewSession(ctx context.Context, lo, hi uint32) *Session {
	ctx, cancel := context.WithCancelCause(ctx)
	s := &Session{sh: sh, ctx: ctx, cancel: cancel, Lo: lo, Hi: hi, stopBeat: make(chan struct{}), beatDone: make(chan struct{}),
		sendAll: make(chan struct{})}
	s.users = make([]*User, hi-lo)
	for i := range s.users {
		idx := lo + uint32(i)
		s.users[i] = &User{s: s, idx: idx, inbox: verify.NewInbox(idx), out: verify.NewOutbox()}
	}
	sh.mu.Lock()
	sh.sessions = append(sh.sessions, s)
	sh.mu.Unlock()
	if err := sh.Failure(); err != nil {
		cancel(err)
	}
	go s.heartbeat()
	return s
}

// Context ends with the VU's, or when the run fails early (Shared.Fail).
func (s *Session) Context() context.Context { return s.ctx }

// Shared returns the process-wide state the session belongs to.
func (s *Session) Shared() *Shared { return s.sh }

// LoginResult counts one login phase.
type LoginResult struct {
	Attempted int   `js:"attempted"`
	Online    int   `js:"online"`
	Failed    int   `js:"failed"`
	FirstErr  error `js:"-"`
}

// Login logs in the session's users of the given phase, LoginParallel at a
// time, each followed by its sync; it returns when all have finished.
func (s *Session) Login(phase plan.Login) LoginResult {
	if phase == plan.Late {
		s.sh.SetPhase("late login")
	} else {
		s.sh.SetPhase("login")
	}
	var (
		res LoginResult
		mu  sync.Mutex
	)
	g := errgroup.Group{}
	g.SetLimit(s.sh.Opts.LoginParallel)
	for _, u := range s.users {
		if s.sh.Plan.Login[u.idx] != phase {
			continue
		}
		res.Attempted++
		if s.ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			ctx, cancel := context.WithTimeout(s.ctx, 60*time.Second)
			defer cancel()
			err := u.login(ctx, false)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.Failed++
				if res.FirstErr == nil {
					res.FirstErr = err
				}
				s.sh.warn("%v", err)
				return nil
			}
			res.Online++
			return nil
		})
	}
	_ = g.Wait()
	return res
}

// heartbeat pings every online user once per PingInterval, spread evenly
// over the interval so a hundred thousand users do not ping in one burst.
func (s *Session) heartbeat() {
	defer close(s.beatDone)
	slots := int(s.sh.Opts.PingInterval / (100 * time.Millisecond))
	if slots < 1 {
		slots = 1
	}
	tick := time.NewTicker(s.sh.Opts.PingInterval / time.Duration(slots))
	defer tick.Stop()
	for slot := 0; ; slot = (slot + 1) % slots {
		select {
		case <-tick.C:
		case <-s.stopBeat:
			return
		case <-s.ctx.Done():
			return
		}
		for i := slot; i < len(s.users); i += slots {
			if c := s.users[i].current(); c != nil {
				if c.Ping() == nil {
					s.Tally.HeartbeatsSent.Add(1)
				}
			}
		}
	}
}

// Users returns the session's users (for tests and reconciliation).
func (s *Session) Users() []*User { return s.users }

// Inbox and Outbox expose a user's verification state.
func (u *User) Inbox() *verify.Inbox   { return u.inbox }
func (u *User) Outbox() *verify.Outbox { return u.out }
func (u *User) Index() uint32          { return u.idx }

// Close ends every connection of the session. Ends on purpose are not
// disconnects; a connection the server dropped before it read our goodbye is.
func (s *Session) Close() {
	if !s.closing.CompareAndSwap(false, true) {
		return
	}
	close(s.stopBeat)
	<-s.beatDone
	var wg sync.WaitGroup
	ended := func(dropped bool) {
		if dropped {
			s.Tally.Disconnects.Add(1)
		}
		s.sh.addOnline(-1)
		wg.Done()
	}
	// A few goroutines say goodbye; a write to a stuck socket must not hold
	// up the others.
	var g errgroup.Group
	g.SetLimit(closeSenders)
	for _, u := range s.users {
		u.mu.Lock()
		c := u.conn
		u.conn = nil
		u.mu.Unlock()
		if c != nil {
			wg.Add(1)
			g.Go(func() error { c.Close(ended); return nil })
		}
	}
	wg.Wait()
	s.cancel(context.Canceled) // reconnects still waiting give up
}

const closeSenders = 16

// MaxSendLag is the latest any message of this session left after its
// scheduled time: a generator that falls behind its schedule says so here.
func (s *Session) MaxSendLag() time.Duration {
	return time.Duration(s.maxLagUs.Load()) * time.Microsecond
}

func (s *Session) String() string { return fmt.Sprintf("users %d..%d", s.Lo, s.Hi-1) }
