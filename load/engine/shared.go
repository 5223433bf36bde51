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

// Options tune how users behave.
type Options struct {
	PingInterval time.Duration // heartbeat period per connection (OpenIM's read deadline is 30 s)
	// PingAfterSilence pings a connection only once it has written
	// nothing for PingInterval (Keepalive.AfterSilence); otherwise each is
	// pinged once per PingInterval on a fixed timer.
	PingAfterSilence bool
	// ReadSlack is how much longer than PingInterval a connection may go
	// without a byte from the server before the client counts it dropped:
	// the driver's read timeout is their sum (ReadTimeout).
	ReadSlack      time.Duration
	LoginParallel  int           // logins in flight per VU
	GapGrace       time.Duration // how long a seq gap may stay open before it is pulled
	ReconnectDelay time.Duration // first wait before logging in again after a disconnect; doubles per attempt
	ReconnectCap   time.Duration // the longest wait between attempts
	ReconnectMax   int           // attempts per disconnect
	LoginRetries   int           // a first login that failed is tried again this often (0: 5; <0: never), with the reconnect backoff
	// LoginWithin bounds a login phase: its first attempts and their
	// retries end this long after it began, and a user not online by then
	// is never online (0: no bound but the attempts' own). A server that
	// takes no more connections costs the phase this long, not its
	// users × retries × timeouts.
	LoginWithin  time.Duration
	DrainQuiet   time.Duration // drain ends after this long without a delivery
	DrainTimeout time.Duration // drain ends after this long in any case
	SyncBatch    int           // seqs per pull request during a sync
	// NoDrainSync leaves out the drain's last sync of every online user
	// (IM_DRAIN_SYNC=off): what the server stored and never pushed then
	// stays owed, for the store check to find as late, as it would for a
	// client that only pulls when it notices a gap.
	NoDrainSync bool
	// Split is a run whose users are spread over several processes: one
	// process cannot know that no message was sent yet.
	Split bool
}

// ReadTimeout is how long a connection may stay without a byte from the
// server before the client counts it dropped.
func (o Options) ReadTimeout() time.Duration { return o.PingInterval + o.ReadSlack }

// Defaults fills unset options.
func (o *Options) Defaults() {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	set(&o.PingInterval, 20*time.Second)
	set(&o.ReadSlack, 15*time.Second)
	set(&o.GapGrace, 500*time.Millisecond)
	set(&o.ReconnectDelay, time.Second)
	set(&o.ReconnectCap, 10*time.Second)
	set(&o.DrainQuiet, 3*time.Second)
	set(&o.DrainTimeout, 60*time.Second)
	if o.LoginParallel <= 0 {
		o.LoginParallel = 64
	}
	if o.ReconnectMax <= 0 {
		o.ReconnectMax = 30
	}
	if o.LoginRetries == 0 {
		o.LoginRetries = 5
	}
	if o.SyncBatch <= 0 {
		o.SyncBatch = 1000
	}
}

// Shared is what all workers of one run in one process share: the plan, the
// driver, the checker, and process-wide figures (online users, sends per
// second, progress) that no single VU can know.
type Shared struct {
	RunID   string
	Plan    *plan.Plan
	Driver  Driver
	Checker *verify.Checker
	Opts    Options
	Logf    func(format string, args ...any)

	online     atomic.Int64
	peak       atomic.Int64
	inflight   atomic.Int64 // pulls and syncs under way
	lastChange atomic.Int64 // unix ns of the last delivery or finished pull

	meter   Meter
	open    Meter          // the open classes' sends alone
	classes []classCounter // by class: index into Plan.Streams
	rooms   rooms
	outages outages
	failure atomic.Pointer[error]  // what ended the run early, once
	phase   atomic.Pointer[string] // what the sessions are doing, for progress lines
	sendAt  atomic.Int64           // unix ns: when sending began, 0 before

	mu       sync.Mutex
	sessions []*Session
	barriers map[string]*barrier
	errs     int
}

// NewShared prepares the process-wide state of a run.
func NewShared(runID string, p *plan.Plan, d Driver, opts Options) *Shared {
	opts.Defaults()
	sh := &Shared{RunID: runID, Plan: p, Driver: d, Opts: opts,
		Checker:  &verify.Checker{Run: []byte(runID), Plan: p},
		Logf:     func(string, ...any) {},
		barriers: map[string]*barrier{}}
	if p != nil {
		sh.classes = make([]classCounter, len(p.Streams))
	}
	return sh
}

// Online is the number of users online in this process now; Peak the most.
func (sh *Shared) Online() int64 { return sh.online.Load() }

// Phase is what the sessions are doing: setup, login, sending, late
// login, drain ("" before any).
func (sh *Shared) Phase() string {
	if p := sh.phase.Load(); p != nil {
		return *p
	}
	return ""
}

// SetPhase records what the sessions are doing.
func (sh *Shared) SetPhase(p string) { sh.phase.Store(&p) }

// nothingToSync reports that a first login has nothing to sync: no message
// of the run was sent yet, on a server that keeps nothing in a run's
// conversations before one is.
func (sh *Shared) nothingToSync() bool {
	e, ok := sh.Driver.(EmptyUntilSent)
	return ok && e.EmptyUntilSent() && sh.beforeFirstSend()
}

// beforeFirstSend reports that no message of the run was sent yet: what
// the server holds in the run's conversations is its own (OpenIM's group
// notifications), none of it the run's. A split run's other processes may
// have sent.
func (sh *Shared) beforeFirstSend() bool { return !sh.Opts.Split && sh.sendAt.Load() == 0 }

// SendingSince is when this process began sending (zero before).
func (sh *Shared) SendingSince() time.Time {
	if ns := sh.sendAt.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}
func (sh *Shared) Peak() int64 { return sh.peak.Load() }

// Meter is the per-second send counter of this process.
func (sh *Shared) Meter() *Meter { return &sh.meter }

// OpenMeter is the per-second counter of the open classes' sends.
func (sh *Shared) OpenMeter() *Meter { return &sh.open }

func (sh *Shared) addOnline(d int64) {
	n := sh.online.Add(d)
	for {
		p := sh.peak.Load()
		if n <= p || sh.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

func (sh *Shared) touch() { sh.touchAt(time.Now()) }

// touchAt records activity at now. Within a millisecond of the last record
// it leaves the shared word alone: receivers on every read loop call it.
func (sh *Shared) touchAt(now time.Time) {
	if ns := now.UnixNano(); ns-sh.lastChange.Load() > int64(time.Millisecond) {
		sh.lastChange.Store(ns)
	}
}

// warn logs the first errors of a run and then only counts them, so a
// failing target cannot flood the log.
func (sh *Shared) warn(format string, args ...any) {
	sh.mu.Lock()
	sh.errs++
	n := sh.errs
	sh.mu.Unlock()
	switch {
	case n <= 10:
		sh.Logf(format, args...)
	case n == 11:
		sh.Logf("more errors follow; they are counted in the imbench_* metrics but not logged")
	}
}

// Sessions returns the sessions opened so far.
func (sh *Shared) Sessions() []*Session {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return append([]*Session(nil), sh.sessions...)
}

// Totals sums the tallies of all sessions.
func (sh *Shared) Totals() verify.Totals {
	var t verify.Totals
	for _, s := range sh.Sessions() {
		t.Add(&s.Tally)
	}
	return t
}

// barrier releases everyone once n parties arrived, all at the same instant.
type barrier struct {
	n       int
	arrived int
	at      time.Time
	done    chan struct{}
}

// Barrier waits until n sessions of this process reached the named point
// and returns the common release time.
func (sh *Shared) Barrier(ctx context.Context, name string, n int) (time.Time, error) {
	sh.mu.Lock()
	b := sh.barriers[name]
	if b == nil {
		b = &barrier{n: n, done: make(chan struct{})}
		sh.barriers[name] = b
	}
	if b.n != n {
		sh.mu.Unlock()
		return time.Time{}, fmt.Errorf("barrier %q: %d parties expected, another session said %d", name, b.n, n)
	}
	b.arrived++
	if b.arrived == b.n {
		b.at = time.Now()
		close(b.done)
	}
	sh.mu.Unlock()
	select {
	case <-b.done:
		return b.at, nil
	case <-ctx.Done():
		return time.Time{}, errors.Join(fmt.Errorf("stopped waiting for the other VUs at %q", name), ctx.Err())
	}
}

// Meter counts sends per second of the run's own: from the plan's first
// due time (or the first send where none was set), so a burst inside a
// second is one second's count whatever the clock's second turns.
type Meter struct {
	mu          sync.Mutex
	origin      time.Time
	counts      []int64
	first, last time.Time
}

// begin sets the run's first second to start at t, unless set before.
func (m *Meter) begin(t time.Time) {
	m.mu.Lock()
	if m.origin.IsZero() {
		m.origin = t
	}
	m.mu.Unlock()
}

func (m *Meter) add(t time.Time) {
	m.mu.Lock()
	if m.origin.IsZero() {
		m.origin = t
	}
	if m.first.IsZero() || t.Before(m.first) {
		m.first = t
	}
	if t.After(m.last) {
		m.last = t
	}
	i := max(int64(t.Sub(m.origin)/time.Second), 0)
	for int64(len(m.counts)) <= i {
		m.counts = append(m.counts, 0)
	}
	m.counts[i]++
	m.mu.Unlock()
}

// PerSecond returns when the run's first second began (zero before
// sending) and the count of each second from it.
func (m *Meter) PerSecond() (time.Time, []int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.origin, append([]int64(nil), m.counts...)
}

// Span is when the first and the last message were sent.
func (m *Meter) Span() (first, last time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.first, m.last
}
