package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

var (
	errDroppedAtLogin = errors.New("connection dropped during login")
	errSessionClosed  = errors.New("session closed during login")
)

// User is one simulated client: its connection, its inbox, its send queue.
type User struct {
	s     *Session
	idx   uint32
	inbox *verify.Inbox
	out   *verify.Outbox

	mu          sync.Mutex
	conn        Conn
	everOn      bool
	queue       []sendItem
	inflight    int                // messages sent and not yet answered
	limit       int                // closed pacing: messages in flight at most (open: 1)
	cursor      *plan.SenderCursor // closed pacing: the user's messages
	cursorClass int                // the class the cursor's messages are of
	until       time.Time          // closed pacing: no new message after this
	pumping     bool               // a goroutine is sending the user's messages
	repump      bool               // look again before that goroutine stops
	rooms       []uint32           // chatrooms joined

	gapTimer  bool
	gapConvs  map[uint32]struct{}
	reconnect bool
	away      bool         // logged out for a spell: no reconnect until it ends
	pingedAt  atomic.Int64 // unix ns of the heartbeat's last ping, or of the login after it
	// left is when and why the user's connection last ended, until a
	// login's sync has caught up; catchup is it while that sync runs.
	left    leaving
	catchup atomic.Pointer[leaving]
}

// leaving is a connection's end: why (a spell away, a drop) and when.
type leaving struct {
	why  verify.Catchup
	atUs int64
}

// markLeft records the end of the user's connection, the first since its
// last catch-up. Called with u.mu held.
func (u *User) markLeft(why verify.Catchup) {
	if c := u.catchup.Load(); u.left.why == verify.NoCatchup || (c != nil && *c == u.left) {
		u.left = leaving{why: why, atUs: time.Now().UnixMicro()}
	}
}

// catchingUp marks the pulls of a login's sync as a catch-up after the
// user's last leaving, until done is called; caughtUp forgets the leaving
// once a sync got everything.
func (u *User) catchingUp() (l leaving, done func()) {
	u.mu.Lock()
	l = u.left
	u.mu.Unlock()
	if l.why == verify.NoCatchup {
		return l, func() {}
	}
	u.catchup.Store(&l)
	return l, func() { u.catchup.Store(nil) }
}

// caughtUp forgets leaving l, unless the connection ended again since.
func (u *User) caughtUp(l leaving) {
	u.mu.Lock()
	if u.left == l {
		u.left = leaving{}
	}
	u.mu.Unlock()
}

type sendItem struct {
	m      plan.Msg
	due    time.Time
	window int // messages its sender may have unanswered when it goes (its stream's Window)
}

func (u *User) current() Conn {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.conn
}

// login connects the user; recover marks pulls after it as recovering
// messages the user should have had (a reconnect), not a first sync.
func (u *User) login(ctx context.Context, recover bool) error {
	s := u.s
	began := time.Now()
	var had map[uint32]uint64 // seqs that arrived before this login: the server had them
	var left leaving
	if recover {
		had = u.inbox.MaxSeqs()
		var done func()
		left, done = u.catchingUp()
		defer done()
	}
	c, err := s.sh.Driver.Connect(ctx, u.idx, u)
	if err != nil {
		s.Tally.ConnectErrors.Add(1)
		s.Tally.LoginFailed[CauseOf(err)].Add(1)
		return err
	}
	u.mu.Lock()
	if s.closing.Load() {
		u.mu.Unlock()
		c.Close(func(dropped bool) {
			if dropped {
				s.Tally.Disconnects.Add(1)
				s.Tally.Dropped[DropServerClosed].Add(1)
			}
		})
		return errSessionClosed
	}
	u.conn = c
	u.pingedAt.Store(time.Now().UnixNano()) // an SDK starts its heartbeat at the login
	first := !u.everOn
	u.everOn = true
	u.mu.Unlock()
	s.sh.addOnline(1)
	if !c.Alive() {
		// It dropped before we held it: its Closed call found nothing to
		// close, so handle the drop here (a second call is a no-op).
		u.Closed(c, errDroppedAtLogin, false)
		return nil
	}
	if first {
		switch s.sh.Plan.Login[u.idx] {
		case plan.Late:
			s.Tally.LoginsLate.Add(1)
		case plan.Timed:
			s.Tally.LoginsTimed.Add(1)
		default:
			s.Tally.LoginsImmediate.Add(1)
		}
	}
	ok := true
	if ls, is := c.(LoginSyncer); is {
		if err := ls.LoginSync(ctx, recover); err != nil {
			ok = false
			s.sh.warn("login of %s: %v", s.sh.Plan.UserID(u.idx), err)
		}
	}
	var reqs int64
	synced := true
	if recover || !s.sh.nothingToSync() {
		reqs, synced = u.sync(ctx, c, recover, had)
	}
	if err := s.sh.Failure(); err != nil {
		return err // the sync found the server without its state
	}
	s.Logins.record(c, began, reqs, ok && synced)
	if ok && synced {
		u.caughtUp(left)
	}
	if recover {
		u.rejoin(ctx)
	}
	u.pump()
	return nil
}

// sync asks the server for its max seqs and pulls everything not yet here,
// as the SDK does after every login. It returns the requests it made and
// whether it got everything it asked for. had is what arrived before a
// reconnect: a server whose newest seq is below it lost its state.
func (u *User) sync(ctx context.Context, c Conn, recover bool, had map[uint32]uint64) (requests int64, ok bool) {
	sh := u.s.sh
	sh.inflight.Add(1)
	defer sh.inflight.Add(-1)
	if hs, ok := c.(HeadSyncer); ok {
		return 1, u.headSync(ctx, hs, recover)
	}
	type maxes struct {
		m   map[uint32]uint64
		err error
	}
	ch := make(chan maxes, 1)
	requests = 1
	if err := c.MaxSeqs(func(m map[uint32]uint64, err error) { ch <- maxes{m, err} }); err != nil {
		sh.warn("sync of %s: %v", sh.Plan.UserID(u.idx), err)
		return requests, false
	}
	var got maxes
	select {
	case got = <-ch:
	case <-ctx.Done():
		return requests, false
	}
	if got.err != nil {
		sh.warn("sync of %s: %v", sh.Plan.UserID(u.idx), got.err)
		return requests, false
	}
	// Asked after the answer came: the server counted no message of the
	// run in its newest seqs. Pulling what it had would fetch only its own
	// notices, which the run checks none of.
	if !recover && sh.beforeFirstSend() {
		for conv, max := range got.m {
			u.inbox.BeforeRun(conv, max)
		}
		return requests, ctx.Err() == nil
	}
	ok = true
	for conv, max := range got.m {
		if max < had[conv] {
			sh.Fail(fmt.Errorf("%w: its newest seq of %s's conversation %d is %d, below the %d it delivered (restarted without its state?)",
				ErrStateLost, sh.Plan.UserID(u.idx), conv, max, had[conv]))
			return requests, false
		}
		for round := 0; ctx.Err() == nil; round++ {
			missing := u.inbox.MissingUpTo(conv, max, sh.Opts.SyncBatch)
			if len(missing) == 0 || round > int(max)/sh.Opts.SyncBatch+2 {
				break // done, or the server keeps not having them
			}
			requests++
			if err := u.pullWait(ctx, c, map[uint32][]uint64{conv: missing}, recover); err != nil {
				sh.warn("pull for %s: %v", sh.Plan.UserID(u.idx), err)
				ok = false
				break
			}
		}
	}
	return requests, ok && ctx.Err() == nil
}

func (u *User) headSync(ctx context.Context, hs HeadSyncer, recover bool) bool {
	sh := u.s.sh
	done := make(chan error, 1)
	u.s.Tally.PullRequests.Add(1)
	err := hs.Sync(recover, func(err error) { done <- err })
	if err == nil {
		select {
		case err = <-done:
			sh.touch()
		case <-ctx.Done():
			return false
		}
	}
	if err != nil {
		sh.warn("sync of %s: %v", sh.Plan.UserID(u.idx), err)
	}
	return err == nil
}

func (u *User) pullWait(ctx context.Context, c Conn, seqs map[uint32][]uint64, recover bool) error {
	done := make(chan error, 1)
	u.s.Tally.PullRequests.Add(1)
	if err := c.Pull(seqs, recover, func(err error) { done <- err }); err != nil {
		return err
	}
	select {
	case err := <-done:
		u.s.sh.touch()
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Sent implements OwnSeqs.
func (u *User) Sent(conv uint32, seq uint64) { u.inbox.Own(conv, seq) }

// Arrive implements Handler.
func (u *User) Arrive(a verify.Arrival) {
	s := u.s
	now := time.Now()
	if a.Pulled {
		if l := u.catchup.Load(); l != nil {
			a.Catchup, a.LeftUs = l.why, l.atUs
		}
	}
	_, gap := s.sh.Checker.Receive(u.inbox, a, now, &s.Tally)
	s.sh.touchAt(now)
	if a.Pulled || a.Seq == 0 || !gap || s.sh.Plan.Convs[a.Conv].Kind == plan.Room {
		return // a chatroom keeps no history to pull
	}
	u.mu.Lock()
	if u.gapConvs == nil {
		u.gapConvs = map[uint32]struct{}{}
	}
	u.gapConvs[a.Conv] = struct{}{}
	arm := !u.gapTimer
	u.gapTimer = true
	u.mu.Unlock()
	if arm {
		s.sh.inflight.Add(1)
		time.AfterFunc(s.sh.Opts.GapGrace, u.fillGaps)
	}
}

// fillGaps pulls the seqs still missing a grace period after a gap was seen:
// a push that was only reordered arrives within the grace and needs no pull.
func (u *User) fillGaps() {
	sh := u.s.sh
	defer sh.inflight.Add(-1)
	u.mu.Lock()
	convs := u.gapConvs
	u.gapConvs, u.gapTimer = nil, false
	c := u.conn
	u.mu.Unlock()
	if c == nil {
		return // the reconnect's sync will pull them
	}
	seqs := map[uint32][]uint64{}
	for conv := range convs {
		if g := u.inbox.Gaps(conv, sh.Opts.SyncBatch); len(g) > 0 {
			seqs[conv] = g
		}
	}
	if len(seqs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(u.s.ctx, 30*time.Second)
	defer cancel()
	u.s.Tally.GapPullRequests.Add(1)
	if err := u.pullWait(ctx, c, seqs, true); err != nil && ctx.Err() == nil {
		sh.warn("gap pull for %s: %v", sh.Plan.UserID(u.idx), err)
	}
}

// Closed implements Handler: count the disconnect and log in again, unless
// the server kicked this login out on purpose.
func (u *User) Closed(c Conn, err error, kicked bool) {
	s := u.s
	u.mu.Lock()
	was := u.conn == c && c != nil // false when Close took it first (Close counts it), or already handled
	if was {
		u.conn = nil
	}
	again := was && !kicked && !s.closing.Load() && !u.reconnect
	if again {
		u.reconnect = true
	}
	u.mu.Unlock()
	if !was {
		return
	}
	u.mu.Lock()
	u.markLeft(verify.CatchupReconnect)
	u.mu.Unlock()
	s.sh.addOnline(-1)
	// Even while the session closes: Close had not reached this connection,
	// so no goodbye was out and the server dropped it.
	s.Tally.Disconnects.Add(1)
	cause := DropCauseOf(err, kicked)
	s.Tally.Dropped[cause].Add(1)
	if kicked {
		s.Tally.Kicks.Add(1)
	}
	s.sh.warn("%s: connection dropped (%s): %v", s.sh.Plan.UserID(u.idx), verify.DropCauseName(cause), err)
	if again {
		s.sh.outages.drop(time.Now())
		s.sh.inflight.Add(1)
		go u.relogin()
	}
}

// relogin logs a dropped user in again, waiting a capped, jittered backoff
// before each attempt; each attempt tells the driver its number, so that a
// driver with several gateways tries the next one.
func (u *User) relogin() {
	s := u.s
	defer s.sh.inflight.Add(-1)
	setFlag := func(v bool) {
		u.mu.Lock()
		u.reconnect = v
		u.mu.Unlock()
	}
	back := false
	defer func() { s.sh.outages.back(time.Now(), back) }()
	o := s.sh.Opts
	var last error // the previous attempt's failure
	for attempt := 1; attempt <= o.ReconnectMax; attempt++ {
		select {
		case <-time.After(backoff(attempt, o.ReconnectDelay, o.ReconnectCap)):
		case <-s.ctx.Done():
			setFlag(false)
			return
		}
		if s.closing.Load() {
			return
		}
		u.mu.Lock()
		away := u.away
		u.mu.Unlock()
		if away { // logged out on purpose meanwhile: the spell's end logs it in
			setFlag(false)
			return
		}
		if last != nil {
			s.Tally.LoginRetried[CauseOf(last)].Add(1)
		}
		// Cleared before the login so that the new connection, should it
		// drop at once, starts its own reconnect.
		setFlag(false)
		ctx, cancel := context.WithTimeout(WithAttempt(s.ctx, attempt), 30*time.Second)
		err := u.login(ctx, true)
		cancel()
		if err == nil {
			s.Tally.Reconnects.Add(1)
			back = true
			return
		}
		if errors.Is(err, ErrStateLost) {
			s.sh.Fail(fmt.Errorf("%w (restarted without its state?); not retrying", err))
			return
		}
		setFlag(true)
		s.sh.warn("reconnect %d of %s: %v", attempt, s.sh.Plan.UserID(u.idx), err)
		last = err
	}
	setFlag(false)
}
