package runner

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/segment"
	"github.com/imbench/imbench/load/verify"
)

// Run is one test run in this process: what setup made, what every
// worker's session adds to, and what the summary reads.
type Run struct {
	ID        string
	Plan      *plan.Plan
	Target    engine.Target
	Protocol  engine.Spec
	Opts      RunOptions
	proto     engine.Protocol // the target as its protocol reads it: what removes the run's users at its end
	Driver    engine.Driver
	Shared    *engine.Shared
	Setup     engine.SetupReport
	Segment   string // the segment's interval ("1/3:2/3"), empty for a whole run
	Segments  int    // segments the run is split over
	StartAt   time.Time
	StartedAt time.Time
	log       *slog.Logger
	setupOnly bool // the setup of a split run, whose end is elsewhere
	// parentCleans: the setup of a run split on this machine, whose parent
	// removes what the run made once its segments end.
	parentCleans bool

	progress *progress // progress lines, when this process prints them
	held     heldSpan  // an idle-holding run: when its users were all online
	storm    *storm    // a reconnect storm asked of the target, when stormAt is set
	self     selfUsage // this process's CPU from the start of its run
	// stopCheck: StopWhenLost, checked once the users logged in.
	stopCheck lostAtLogin

	mu        sync.Mutex
	endedAt   time.Time
	reconcile *verify.Reconciliation
	stored    *storeCheck // the store check after the drain, when it ran or was skipped
	metrics   *pusher
}

// open checks the target and the options against the plan, and asks the
// target's protocol to answer (preflight), before any load.
// split is how many segments the run is split over (a setup-only process
// checks for them too).
func open(ctx context.Context, p *plan.Plan, t engine.Target, o RunOptions, seg segment.Segment, split int, startAt time.Time,
	setupOnly bool, log *slog.Logger) (*Run, error) {
	eopts, err := o.engineOptions()
	if err != nil {
		return nil, err
	}
	stm, err := newStorm(o.StormAt, o.StormURL, t.AllowRemote)
	if err != nil {
		return nil, err
	}
	spec, proto, err := t.Open()
	if err != nil {
		return nil, err
	}
	keep, limit := spec.KeepaliveOf(proto)
	if o.PingInterval == "" && keep.Every > 0 {
		eopts.PingInterval = keep.Every
	}
	eopts.PingAfterSilence = keep.AfterSilence
	if limit > 0 && eopts.PingInterval > limit {
		return nil, fmt.Errorf("IM_PING_INTERVAL %s: %s closes connections that stay silent; ping at most every %s", eopts.PingInterval, spec.Name, limit)
	}
	if err := spec.CanCarry(p); err != nil {
		return nil, err
	}
	d, err := proto.Driver(p, eopts.ReadTimeout())
	if err != nil {
		return nil, err
	}
	run := &Run{ID: p.RunID, Plan: p, Target: t, Protocol: spec, Opts: o, proto: proto, Driver: d, StartedAt: time.Now(),
		StartAt: startAt, Segments: seg.Count, log: log, setupOnly: setupOnly}
	if seg.Split() {
		run.Segment = seg.Interval()
	}
	for _, st := range p.Streams {
		if split > 1 && !st.Open() && st.Until == 0 {
			return nil, fmt.Errorf("a run over several processes keeps time on a common clock: give closed classes a duration (DURATION), not message counts")
		}
	}
	if split > 1 && len(p.Rooms) > 0 {
		return nil, fmt.Errorf("chatroom classes run in one process: who was present at each send is known only there")
	}
	if seg.Split() && startAt.IsZero() && !setupOnly {
		return nil, fmt.Errorf("a run split over %d segments needs -start-at, the common start its processes keep time from", seg.Count)
	}
	if seg.Index == 0 {
		run.storm = stm // one process of a split run asks for it
	}
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = proto.Preflight(pctx)
	cancel()
	if err != nil {
		return nil, err
	}
	eopts.Split = seg.Split()
	run.Shared = engine.NewShared(run.ID, p, d, eopts)
	run.Shared.Logf = func(format string, args ...any) { log.Warn(fmt.Sprintf(format, args...)) }
	return run, nil
}

// phaseAt is when a phase begins on a split run's common clock (zero in a
// single process, where the barriers alone order the phases):
//
//	login   StartAt
//	send    + login window
//	sent    + sending time at the plan's rate + send margin
//	late    + login window (late users logged in and synced)
func (r *Run) phaseAt(phase string) time.Time {
	if r.StartAt.IsZero() {
		return time.Time{}
	}
	login := r.loginWindow()
	send := r.StartAt.Add(login)
	sent := send.Add(r.Plan.Duration()).Add(r.sendMargin())
	switch phase {
	case "login":
		return r.StartAt
	case "send":
		return send
	case "sent":
		return sent
	case "late":
		return sent.Add(login)
	}
	return time.Time{}
}

// loginWindow allows 500 logins a second per process, plus 10 s.
func (r *Run) loginWindow() time.Duration {
	if d, err := time.ParseDuration(r.Opts.LoginWindow); err == nil && d > 0 {
		return d
	}
	per := (r.Plan.Users + r.Segments - 1) / max(r.Segments, 1)
	return 10*time.Second + time.Duration(per)*time.Second/500
}

func (r *Run) sendMargin() time.Duration {
	if d, err := time.ParseDuration(r.Opts.SendMargin); err == nil && d > 0 {
		return d
	}
	return 15 * time.Second
}

// reconciled computes the reconciliation once.
func (r *Run) reconciled() verify.Reconciliation {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reconcile != nil {
		return *r.reconcile
	}
	in, out := r.boxes()
	rec := verify.Reconcile(r.Plan, r.Shared.Totals().Expected, in, out, 20)
	r.reconcile = &rec
	r.endedAt = time.Now()
	return rec
}

func (r *Run) resultDir() string { return filepath.Join(r.Opts.ResultsDir, r.ID) }
