package engine

import (
	"context"
	"errors"
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
	// windows are the open streams' messages in flight per sender (their
	// Window), by stream: schedule sets them before it queues a message.
	windows []int
	Tally   verify.Tally
	Logins  LoginCost // what the session's logins cost

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
	Failed    int   `js:"failed"`  // users that never got online in this phase
	Retried   int   `js:"retried"` // users that got online after a failed attempt
	FirstErr  error `js:"-"`
}

// Login logs in the session's users of the given phase, LoginParallel at a
// time, each followed by its sync; it returns when all have finished.
//
// A login that fails (the server closed the connection first, did not
// answer, or the dial failed) is tried again after the reconnect backoff,
// LoginRetries times at most: a server that drops a few logins of a burst
// (a real WuKongIM does) gets them again, and the user, online late, pulls
// what it missed. A refusal is not tried again, nor is anything when every
// one of at least minAllFailed first attempts failed: the target refuses
// everyone, and the run ends at once. A user whose every attempt failed is
// marked never online: what it was owed is counted as not attempted, not
// as lost.
func (s *Session) Login(phase plan.Login) LoginResult {
	if phase == plan.Late {
		s.sh.SetPhase("late login")
	} else {
		s.sh.SetPhase("login")
	}
	return s.loginWhere(func(u *User) bool { return s.sh.Plan.Login[u.idx] == phase })
}

// loginWhere logs in the session's users that which selects.
func (s *Session) loginWhere(which func(*User) bool) LoginResult {
	var (
		res    LoginResult
		mu     sync.Mutex
		failed []*User
		errs   = map[*User]error{}
	)
	done := func(u *User, err error, retried bool) {
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			res.Online++
			if retried {
				res.Retried++
			}
			return
		}
		if res.FirstErr == nil {
			res.FirstErr = err
		}
		res.Failed++
	}
	var deadline time.Time
	if w := s.sh.Opts.LoginWithin; w > 0 {
		deadline = time.Now().Add(w)
	}
	g := errgroup.Group{}
	g.SetLimit(s.sh.Opts.LoginParallel)
	for _, u := range s.users {
		if !which(u) {
			continue
		}
		res.Attempted++
		if s.ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if !deadline.IsZero() && !time.Now().Before(deadline) {
				err := s.outOfTime()
				done(u, err, false)
				u.gaveUp(err, 0)
				return nil
			}
			err := u.attempt(0, deadline)
			if err == nil || !s.retrying(err) {
				done(u, err, false)
				if err != nil {
					u.gaveUp(err, 1)
				}
				return nil
			}
			mu.Lock()
			failed = append(failed, u)
			errs[u] = err
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait()
	if res.Online == 0 && len(failed)+res.Failed >= minAllFailed {
		// Every first attempt failed: the target refuses everyone (a wrong
		// secret, a server that is down). Retrying would only delay saying so.
		for _, u := range failed {
			done(u, errs[u], false)
			u.gaveUp(errs[u], 1)
		}
		return res
	}
	// Each waits its backoff without holding a slot; attempts take one.
	sem := make(chan struct{}, s.sh.Opts.LoginParallel)
	var wg sync.WaitGroup
	for _, u := range failed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tries, err := u.retryLogin(errs[u], sem, deadline)
			done(u, err, err == nil)
			if err != nil {
				u.gaveUp(err, tries)
			}
		}()
	}
	wg.Wait()
	return res
}

// minAllFailed is how many first attempts, all failed, say that the target
// refuses everyone rather than dropping a few logins.
const minAllFailed = 10

// retrying reports whether a failed first attempt is tried again.
func (s *Session) retrying(err error) bool {
	return s.sh.Opts.LoginRetries > 0 && retryable(err) && s.ctx.Err() == nil && !s.closing.Load()
}

// attempt is one first-login attempt; retry counts the attempts before it.
// It ends at the phase's deadline where there is one.
func (u *User) attempt(retry int, deadline time.Time) error {
	end := time.Now().Add(60 * time.Second)
	if !deadline.IsZero() && deadline.Before(end) {
		end = deadline
	}
	ctx, cancel := context.WithDeadline(WithRetry(u.s.ctx, retry), end)
	defer cancel()
	return u.login(ctx, false)
}

// outOfTime is a login phase's end for a user not online by then.
func (s *Session) outOfTime() error {
	return fmt.Errorf("not online within the login time (IM_LOGIN_WITHIN %s)", s.sh.Opts.LoginWithin)
}

// retryLogin tries a first login that failed with err again, after the
// reconnect backoff, until it succeeds or LoginRetries attempts more have
// failed; it returns the attempts made in all and the last error.
func (u *User) retryLogin(err error, sem chan struct{}, deadline time.Time) (int, error) {
	s := u.s
	o := s.sh.Opts
	tries := 1
	for retry := 1; retry <= o.LoginRetries; retry++ {
		wait := backoff(retry, o.ReconnectDelay, o.ReconnectCap)
		if !deadline.IsZero() && !time.Now().Add(wait).Before(deadline) {
			return tries, fmt.Errorf("%v; %w", err, s.outOfTime())
		}
		s.sh.warn("%v; trying again in %s (retry %d of %d)", err, wait.Round(time.Millisecond), retry, o.LoginRetries)
		select {
		case <-time.After(wait):
		case <-s.ctx.Done():
			return tries, err
		}
		s.Tally.LoginRetried[CauseOf(err)].Add(1)
		tries++
		sem <- struct{}{}
		err = u.attempt(retry, deadline)
		<-sem
		if err == nil {
			s.Tally.LoginsRetried.Add(1)
			return tries, nil
		}
		if !s.retrying(err) {
			break
		}
	}
	return tries, err
}

// gaveUp reports a user whose first login failed for good; one that was
// never online is marked so, and what it was owed is not attempted.
func (u *User) gaveUp(err error, tries int) {
	s := u.s
	u.mu.Lock()
	never := !u.everOn
	u.mu.Unlock()
	if never && !errors.Is(err, errSessionClosed) && s.ctx.Err() == nil {
		u.inbox.SetNeverOnline()
		s.Tally.NeverOnline.Add(1)
	}
	what := "its only attempt failed"
	switch {
	case tries == 0:
		what = "the login time ran out before its turn"
	case tries > 1:
		what = fmt.Sprintf("all %d attempts failed", tries)
	}
	s.sh.warn("%v; %s never got online (%s)", err, s.sh.Plan.UserID(u.idx), what)
}

// heartbeat keeps every online user's connection alive as its SDK does:
// each once per PingInterval on a fixed timer started at its login
// (WuKongIM's, OpenIM's), or only once it has written nothing for
// PingInterval (MQTT's keepAlive). The pings due go out in one-second
// slots, not more often: each slot wakes the server, and a Go server
// (WuKongIM) woken ten times a second between the sends' bursts spends
// more CPU per delivery than under the vendor's tool, which leaves it
// parked (docs/benchmark-method.md, "The server's cost").
func (s *Session) heartbeat() {
	defer close(s.beatDone)
	slots := int(s.sh.Opts.PingInterval / heartbeatSlot)
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
		if s.sh.Opts.PingAfterSilence {
			s.pingTheSilent(slot, slots)
		} else {
			s.pingTheDue()
		}
	}
}

// pingTheDue pings every connection whose last ping, or login, is a
// PingInterval ago (within half a slot).
func (s *Session) pingTheDue() {
	now := time.Now()
	due := now.Add(-s.sh.Opts.PingInterval + heartbeatSlot/2).UnixNano()
	for _, u := range s.users {
		if u.pingedAt.Load() > due {
			continue
		}
		if c := u.current(); c != nil && c.Ping() == nil {
			u.pingedAt.Store(now.UnixNano())
			s.Tally.HeartbeatsSent.Add(1)
		}
	}
}

// pingTheSilent pings every connection that has written nothing for a
// whole PingInterval, each slot, as MQTT.js reschedules its PINGREQ after
// every packet it sends. A user whose turn comes (once per interval) and
// whose own packets made every ping of the interval unneeded counts as
// skipped. A connection that is not a Talker is pinged at its turn.
func (s *Session) pingTheSilent(slot, slots int) {
	now := time.Now()
	quietSince := now.Add(-s.sh.Opts.PingInterval + heartbeatSlot/2)
	for i, u := range s.users {
		c := u.current()
		if c == nil {
			continue
		}
		turn := i%slots == slot
		t, talks := c.(Talker)
		switch {
		case talks && t.WroteSince(quietSince):
			if turn && u.pingedAt.Load() < quietSince.UnixNano() {
				s.Tally.HeartbeatsSkipped.Add(1)
			}
		case talks || turn:
			if c.Ping() == nil {
				u.pingedAt.Store(now.UnixNano())
				s.Tally.HeartbeatsSent.Add(1)
			}
		}
	}
}

// heartbeatSlot is how often the heartbeat wakes: the pings of a slot go
// out together.
const heartbeatSlot = time.Second

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
		if dropped { // the server closed it before it read our goodbye
			s.Tally.Disconnects.Add(1)
			s.Tally.Dropped[DropServerClosed].Add(1)
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
