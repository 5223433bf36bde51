package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/grafana/sobek"
	"go.k6.io/k6/lib"
	"go.k6.io/k6/metrics"

	"github.com/imbench/imbench/internal/runid"
	"github.com/imbench/imbench/internal/strictjson"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// PlanHandle is a built plan as JS sees it.
type PlanHandle struct {
	p *plan.Plan

	Name      string  `js:"name"`
	Users     int     `js:"users"`
	Immediate int     `js:"immediate"`
	Late      int     `js:"late"`
	Never     int     `js:"never"`
	Groups    int     `js:"groups"`
	Friends   int     `js:"friendships"`
	Messages  int64   `js:"messages"` // -1: bounded by time only
	Rate      float64 `js:"rate"`
	Seconds   float64 `js:"seconds"` // sending time at the plan's pace
}

type planEntry struct {
	once sync.Once
	p    *plan.Plan
	err  error
}

// Workload builds the plan of a workload (see plan.Workload): a list of
// classes of registered kinds. Every VU gets the same plan, built once per
// process.
func (mi *ModuleInstance) Workload(v sobek.Value) (*PlanHandle, error) {
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return nil, errors.New("im.workload: a workload object is required")
	}
	var w plan.Workload
	if err := strictjson.Convert(v.Export(), &w); err != nil {
		return nil, fmt.Errorf("im.workload: %w", err)
	}
	return mi.build("im.workload", w)
}

// Integration builds the plan of OpenIM's integration_test flags (see
// plan.Integration): a workload of one integration class.
func (mi *ModuleInstance) Integration(v sobek.Value) (*PlanHandle, error) {
	var in plan.Integration
	if err := exportStrict(mi.vu.Runtime(), v, &in); err != nil {
		return nil, fmt.Errorf("im.integration: %w", err)
	}
	w, err := in.Workload()
	if err != nil {
		return nil, fmt.Errorf("im.integration: %w", err)
	}
	return mi.build("im.integration", w)
}

func (mi *ModuleInstance) build(what string, w plan.Workload) (*PlanHandle, error) {
	if w.RunID == "" {
		w.RunID = mi.root.defaultRunID()
	}
	key, _ := json.Marshal(w)
	mi.root.mu.Lock()
	e := mi.root.plans[string(key)]
	if e == nil {
		e = &planEntry{}
		mi.root.plans[string(key)] = e
	}
	mi.root.mu.Unlock()
	e.once.Do(func() { e.p, e.err = w.Build() })
	if e.err != nil {
		return nil, fmt.Errorf("%s: %w", what, e.err)
	}
	p := e.p
	return &PlanHandle{p: p, Name: p.Name, Users: p.Users, Immediate: p.Count(plan.Immediate),
		Late: p.Count(plan.Late), Never: p.Count(plan.Never), Groups: len(p.Groups), Friends: len(p.Friends),
		Messages: p.Planned(), Rate: p.Rate, Seconds: p.Duration().Seconds()}, nil
}

var generatedRunID struct {
	once sync.Once
	id   string
}

// defaultRunID is one id per process, for runs started without IM_RUN_ID.
func (r *RootModule) defaultRunID() string {
	generatedRunID.once.Do(func() { generatedRunID.id = runid.New() })
	return generatedRunID.id
}

// RunOptions tune a run; durations are Go/k6 duration strings.
type RunOptions struct {
	VUs            int    `js:"vus"`
	ResultsDir     string `js:"resultsDir"`
	PingInterval   string `js:"pingInterval"`
	GapGrace       string `js:"gapGrace"`
	ReconnectDelay string `js:"reconnectDelay"`
	ReconnectCap   string `js:"reconnectCap"`
	DrainQuiet     string `js:"drainQuiet"`
	DrainTimeout   string `js:"drainTimeout"`
	LoginParallel  int    `js:"loginParallel"`
	Version        string `js:"version"`     // imbench's version, recorded in summary.json
	SetupOnly      bool   `js:"setupOnly"`   // set up the target and stop (before a distributed run)
	StartAt        int64  `js:"startAt"`     // unix ms every process of a distributed run keeps time from
	LoginWindow    string `js:"loginWindow"` // distributed: time allowed for each login phase
	SendMargin     string `js:"sendMargin"`  // distributed: time allowed after the last scheduled send
	ServerCores    int    `js:"serverCores"` // the target machine's cores, for per-core rates in the tables
	StormAt        string `js:"stormAt"`     // after sending began, the target drops every connection at once
	StormURL       string `js:"stormUrl"`    // where to ask for it (the reference target's POST /fault/storm)
}

func (o RunOptions) engineOptions() (engine.Options, error) {
	var out engine.Options
	var errs []error
	for name, f := range map[string]struct {
		raw string
		dst *time.Duration
	}{
		"pingInterval":   {o.PingInterval, &out.PingInterval},
		"gapGrace":       {o.GapGrace, &out.GapGrace},
		"reconnectDelay": {o.ReconnectDelay, &out.ReconnectDelay},
		"reconnectCap":   {o.ReconnectCap, &out.ReconnectCap},
		"drainQuiet":     {o.DrainQuiet, &out.DrainQuiet},
		"drainTimeout":   {o.DrainTimeout, &out.DrainTimeout},
	} {
		if f.raw == "" {
			continue
		}
		d, err := time.ParseDuration(f.raw)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("%s %q is not a positive duration", name, f.raw))
		}
		*f.dst = d
	}
	out.LoginParallel = o.LoginParallel
	out.Defaults()
	return out, errors.Join(errs...)
}

// Run is one test run in this process: what setup() made, what every VU's
// session adds to, and what teardown() and the summary read.
type Run struct {
	ID        string
	Plan      *plan.Plan
	Target    engine.Target
	Protocol  engine.Spec
	Opts      RunOptions
	Driver    engine.Driver
	Shared    *engine.Shared
	Setup     engine.SetupReport
	Segment   string
	Segments  int       // execution segments the run is split over
	StartAt   time.Time // common start of a distributed run
	StartedAt time.Time

	progress *progress // progress lines, when this process prints them
	storm    *storm    // a reconnect storm asked of the target, when stormAt is set

	mu        sync.Mutex
	endedAt   time.Time
	reconcile *verify.Reconciliation
	latency   *latencyReporter // this process's, once a session flushes
}

// SetupData is what setup() returns to every VU.
type SetupData struct {
	RunID string `js:"runId" json:"runId"`
	VUs   int    `js:"vus" json:"vus"`
}

// Setup checks the target, creates the plan's users, friendships and groups
// on it and opens the run. Call it from the script's setup().
func (mi *ModuleInstance) Setup(ph *PlanHandle, t *engine.Target, v sobek.Value) (map[string]any, error) {
	run, err := mi.open(ph, t, v, "im.setup")
	if err != nil {
		return nil, err
	}
	progress := func(msg string) {
		if st := mi.vu.State(); st != nil {
			st.Logger.WithField("run_id", run.ID).Info("setup: " + msg)
		}
	}
	if run.Setup, err = run.Driver.Setup(mi.vu.Context(), progress); err != nil {
		return nil, fmt.Errorf("setup on %s: %w", run.Target.Name, err)
	}
	return run.data(), nil
}

// Attach joins a run whose users, friendships and groups another k6 process
// set up: the processes of a distributed run (execution segments) started
// with --no-setup call it instead of relying on setup()'s data.
func (mi *ModuleInstance) Attach(ph *PlanHandle, t *engine.Target, v sobek.Value) (map[string]any, error) {
	run, err := mi.open(ph, t, v, "im.attach")
	if err != nil {
		return nil, err
	}
	return run.data(), nil
}

func (r *Run) data() map[string]any {
	return map[string]any{"runId": r.ID, "vus": r.Opts.VUs}
}

// open checks the target and registers the run in this process, once: every
// VU of a --no-setup process calls it.
func (mi *ModuleInstance) open(ph *PlanHandle, t *engine.Target, v sobek.Value, what string) (*Run, error) {
	if ph == nil || t == nil {
		return nil, fmt.Errorf("%s(plan, target, options): plan and target are required", what)
	}
	var o RunOptions
	if v != nil && !sobek.IsUndefined(v) {
		if err := exportStrict(mi.vu.Runtime(), v, &o); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	if o.VUs <= 0 {
		o.VUs = 1
	}
	if o.ResultsDir == "" {
		o.ResultsDir = "results"
	}
	id := ph.p.RunID
	mi.root.openMu.Lock()
	defer mi.root.openMu.Unlock()
	mi.root.mu.Lock()
	existing := mi.root.runs[id]
	mi.root.mu.Unlock()
	if existing != nil {
		return existing, nil
	}
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
	if spec.PingLimit > 0 && eopts.PingInterval > spec.PingLimit {
		return nil, fmt.Errorf("pingInterval %s: %s closes connections that stay silent; ping at most every %s", eopts.PingInterval, spec.Name, spec.PingLimit)
	}
	if err := spec.CanCarry(ph.p); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	d, err := proto.Driver(ph.p, eopts.PingInterval+15*time.Second)
	if err != nil {
		return nil, err
	}
	run := &Run{ID: id, Plan: ph.p, Target: *t, Protocol: spec, Opts: o, Driver: d, StartedAt: time.Now()}

	if o.StartAt > 0 {
		run.StartAt = time.UnixMilli(o.StartAt)
	}
	log := func(string, ...any) {}
	if st := mi.vu.State(); st != nil {
		run.Segment = st.Options.ExecutionSegment.String()
		run.Segments = segments(st.Options.ExecutionSegmentSequence)
		logger := st.Logger.WithField("run_id", run.ID)
		log = func(format string, args ...any) { logger.Warnf(format, args...) }
		logger.Infof("%s on %s (%s): %d users, %d groups, %d friendships, %d messages at %.0f msg/s",
			ph.Name, t.Name, t.System, ph.Users, ph.Groups, ph.Friends, ph.Messages, ph.Rate)
	}
	for _, st := range run.Plan.Streams {
		if run.Segments > 1 && !st.Open() && st.Until == 0 {
			return nil, fmt.Errorf("%s: a run over several k6 processes keeps time on a common clock: give closed classes a duration (DURATION), not message counts", what)
		}
	}
	if run.Segments > 1 && len(run.Plan.Rooms) > 0 {
		return nil, fmt.Errorf("%s: chatroom classes run in one k6 process: who was present at each send is known only there", what)
	}
	if run.Segments > 1 && run.StartAt.IsZero() {
		return nil, fmt.Errorf("%s: a run split over %d execution segments needs IM_START_AT, the common start its processes keep time from", what, run.Segments)
	}
	if run.Segment == "" || strings.HasPrefix(run.Segment, "0:") {
		run.storm = stm // one process of a distributed run asks for it
	}
	pctx, cancel := context.WithTimeout(mi.vu.Context(), 30*time.Second)
	err = proto.Preflight(pctx)
	cancel()
	if err != nil {
		return nil, err
	}
	run.Shared = engine.NewShared(run.ID, ph.p, d, eopts)
	run.Shared.Logf = log
	if !o.SetupOnly {
		every, err := progressEvery(os.Getenv("IM_PROGRESS"), isTerminal(os.Stderr))
		if err != nil {
			return nil, err
		}
		if every > 0 {
			run.progress = startProgress(run, os.Stderr, every)
		}
	}
	mi.root.mu.Lock()
	mi.root.runs[run.ID] = run
	mi.root.last = run
	mi.root.mu.Unlock()
	return run, nil
}

// segments counts the execution segments of a sequence ("0,1/3,2/3,1": 3).
func segments(seq *lib.ExecutionSegmentSequence) int {
	if seq == nil || len(*seq) == 0 {
		return 1
	}
	return len(*seq)
}

// runOrLast is the run of setup()'s data, or, in a process started with
// --no-setup (no data), the run im.attach opened.
func (mi *ModuleInstance) runOrLast(v sobek.Value) (*Run, error) {
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		mi.root.mu.Lock()
		defer mi.root.mu.Unlock()
		if mi.root.last == nil {
			return nil, errors.New("no run in this k6 process")
		}
		return mi.root.last, nil
	}
	run, _, err := mi.runOf(v)
	return run, err
}

func (mi *ModuleInstance) runOf(v sobek.Value) (*Run, SetupData, error) {
	var sd SetupData
	if v == nil || sobek.IsUndefined(v) {
		return nil, sd, errors.New("pass the data setup() returned")
	}
	if err := mi.vu.Runtime().ExportTo(v, &sd); err != nil {
		return nil, sd, err
	}
	mi.root.mu.Lock()
	run := mi.root.runs[sd.RunID]
	mi.root.mu.Unlock()
	if run == nil {
		return nil, sd, fmt.Errorf("run %q was not set up in this k6 process (setup() must call im.setup)", sd.RunID)
	}
	return run, sd, nil
}

// FinishResult is the reconciliation as JS sees it.
type FinishResult struct {
	Expected   int64 `js:"expected"`
	Received   int64 `js:"received"`
	Lost       int64 `js:"lost"`
	Unexpected int64 `js:"unexpected"`
	RoomMissed int64 `js:"roomMissed"` // chatrooms: deliveries to members present at sending that did not arrive
}

// Finish reconciles expected against received deliveries and emits im_lost.
// Call it from teardown(); the summary calls it too if teardown did not.
func (mi *ModuleInstance) Finish(v sobek.Value) (FinishResult, error) {
	run, err := mi.runOrLast(v)
	if err != nil {
		return FinishResult{}, fmt.Errorf("im.finish: %w", err)
	}
	if run.Opts.SetupOnly {
		return FinishResult{}, nil
	}
	rec, fresh := run.reconciled()
	run.progress.Stop()
	if fresh {
		if st := mi.vu.State(); st != nil {
			tags := st.Tags.GetCurrentValues().Tags
			var samples metrics.Samples
			now := time.Now()
			for _, kind := range run.Plan.Kinds() {
				k, m := verify.KindIndex(kind), mi.metrics.lost
				if k == verify.RoomIndex {
					m = mi.metrics.roomMissed // a chatroom's misses are a rate, not a loss
				}
				samples = append(samples, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m,
					Tags: run.tags(tags).With("conv_type", verify.KindName(k))}, Time: now, Value: float64(rec.Lost[k])})
			}
			metrics.PushIfNotDone(mi.vu.Context(), st.Samples, samples)
		}
	}
	t := run.Shared.Totals()
	return FinishResult{Expected: verify.Owed(t.Expected), Received: verify.Owed(t.Pushed) + verify.Owed(t.Pulled),
		Lost: verify.Owed(rec.Lost), Unexpected: verify.Sum(rec.Unexpected), RoomMissed: rec.Lost[verify.RoomIndex]}, nil
}

// reconciled computes the reconciliation once; fresh is true the first time.
func (r *Run) reconciled() (verify.Reconciliation, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reconcile != nil {
		return *r.reconcile, false
	}
	in, out := map[uint32]*verify.Inbox{}, map[uint32]*verify.Outbox{}
	for _, s := range r.Shared.Sessions() {
		for _, u := range s.Users() {
			in[u.Index()], out[u.Index()] = u.Inbox(), u.Outbox()
		}
	}
	rec := verify.Reconcile(r.Plan, r.Shared.Totals().Expected, in, out, 20)
	r.reconcile = &rec
	r.endedAt = time.Now()
	return rec, true
}

// tags adds the run's identity to a k6 tag set.
func (r *Run) tags(base *metrics.TagSet) *metrics.TagSet {
	return base.With("run_id", r.ID).With("target", r.Target.Name).With("system", r.Target.System).
		With("scenario", r.Plan.Name)
}

func (r *Run) resultDir() string { return filepath.Join(r.Opts.ResultsDir, r.ID) }
