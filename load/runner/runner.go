package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/imbench/imbench/internal/profile"

	"github.com/imbench/imbench/internal/lokipush"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/promrw"
	"github.com/imbench/imbench/load/segment"
)

// Exit codes of a run, as k6 had them where k6 had one.
const (
	ExitOK       = 0
	ExitFailed   = 1 // the run failed, or a part of a split run is missing
	ExitBadInput = 2 // refused before any load
	// ExitHandleSummary: the scenario's handleSummary threw, or returned
	// what is not files; summary.json and the report are written all the
	// same.
	ExitHandleSummary = 5
	ExitInterrupted   = 105 // stopped by a signal; its summary is still written
	ExitThresholds    = 99  // a threshold was crossed
	ExitAborted       = 108 // ended early: the server lost its state, or nobody could log in
)

// Config is one run of a scenario in this process.
type Config struct {
	Script       string            // the scenario file
	Env          map[string]string // __ENV and the IM_* settings
	RunID        string            // required
	Segment      segment.Segment   // the part of the workers this process runs
	SetupOnly    bool              // set the target up and stop (before a split run)
	SplitInto    int               // with SetupOnly: the segments the run will be split over (their checks apply now)
	StartAt      time.Time         // a split run's common clock
	NoThresholds bool
	PromWrite    string        // Prometheus remote-write URL, "" for none
	LogPush      string        // Loki-protocol push URL of the log store, "" for none
	PushEvery    time.Duration // metrics push interval (default 5s)
	Instance     string        // the instance label ("segI" in a split run by default)
	// TargetProcesses are the target profile's process groups: they name
	// the processes found serving the run's ports on this machine.
	TargetProcesses []profile.Process
	Stdout          io.Writer
	Stderr          io.Writer
}

// Prepared is a scenario evaluated and its target checked: what remains is
// the load. Everything Prepare refuses is refused before any load.
type Prepared struct {
	cfg      Config
	Script   *Script
	Run      *Run
	log      *slog.Logger
	closeLog func()
}

// Prepare evaluates the scenario, reads the target and options from the
// environment, checks them and asks the target to answer.
func Prepare(ctx context.Context, cfg Config) (*Prepared, error) {
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if cfg.Segment.Count == 0 {
		cfg.Segment = segment.Whole
	}
	if cfg.RunID == "" {
		return nil, errors.New("a run id is required")
	}
	if cfg.PushEvery <= 0 {
		cfg.PushEvery = 5 * time.Second
	}
	if cfg.Instance == "" && cfg.Segment.Split() {
		cfg.Instance = fmt.Sprintf("seg%d", cfg.Segment.Index)
	}
	if cfg.Instance == "" {
		cfg.Instance = cfg.Env["IM_INSTANCE"]
	}
	sc, t, o, err := check(cfg)
	if err != nil {
		return nil, err
	}
	p := sc.Plan.p
	split := max(cfg.Segment.Count, cfg.SplitInto)
	if o.VUs < split {
		o.VUs = split // one worker per segment at least
	}
	log, closeLog := newLogger(cfg, p.Name, t.Name)
	run, err := open(ctx, p, t, o, cfg.Segment, split, cfg.StartAt, cfg.SetupOnly, log)
	if err != nil {
		closeLog()
		return nil, err
	}
	run.parentCleans = cfg.SetupOnly && cfg.SplitInto > 0 // SEGMENTS=n: the process that split the run removes them
	log.Info(fmt.Sprintf("%s on %s (%s): %d users, %d groups, %d friendships, %d messages over %s of sending",
		p.Name, t.Name, t.System, p.Users, len(p.Groups), len(p.Friends), p.Planned(), p.Duration()))
	return &Prepared{cfg: cfg, Script: sc, Run: run, log: log, closeLog: closeLog}, nil
}

// Check loads the scenario and checks what the run would take from it and
// from the environment, touching no target: every mistake a file, a knob
// or a variable holds, said before the target is contacted. It returns
// what each class of the plan will send, a line each.
func Check(cfg Config) ([]string, error) {
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	sc, _, _, err := check(cfg)
	if err != nil {
		return nil, err
	}
	// On this copy of the scenario: the run's own is not called before its end.
	return sc.Plan.p.Lines(), checkOutputNames(sc)
}

func check(cfg Config) (*Script, engine.Target, RunOptions, error) {
	if err := checkKnobs(cfg.Env); err != nil {
		return nil, engine.Target{}, RunOptions{}, err
	}
	sc, err := Load(cfg.Script, cfg.Env, cfg.RunID)
	if err != nil {
		return nil, engine.Target{}, RunOptions{}, err
	}
	t, err := TargetFromEnv(cfg.Env, sc.Options.ProtocolOptions)
	if err != nil {
		return nil, t, RunOptions{}, err
	}
	o, err := RunOptionsFromEnv(cfg.Env, sc.Options)
	if err != nil {
		return nil, t, o, err
	}
	if o.Progress, err = progressEvery(cfg.Env["IM_PROGRESS"], isTerminal(cfg.Stderr)); err != nil {
		return nil, t, o, err
	}
	if sc.Options.Hold != "" && o.StormAt != "" {
		return nil, t, o, fmt.Errorf("a storm (stormAt, IM_STORM_AT) comes after sending begins, and this scenario holds its users instead of sending: set IM_STORM_AT=off")
	}
	if p := sc.Plan.p; p.RunID != cfg.RunID {
		return nil, t, o, fmt.Errorf("the plan's run id %q is not the run's %q: leave runId to the runner", p.RunID, cfg.RunID)
	}
	return sc, t, o, nil
}

// newLogger logs to the log store when there is one (the CLI prints the
// run's warnings from there once it ends), else to stderr.
func newLogger(cfg Config, scenario, target string) (*slog.Logger, func()) {
	if cfg.LogPush == "" {
		return slog.New(slog.NewTextHandler(cfg.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), func() {}
	}
	labels := map[string]string{"run_id": cfg.RunID, "job": "imbench", "target": target, "scenario": scenario}
	if cfg.Instance != "" {
		labels["instance"] = cfg.Instance
	}
	p := lokipush.New(cfg.LogPush, labels)
	return slog.New(p.Handler(slog.NewTextHandler(io.Discard, nil))), p.Close
}

// Output sends what the run prints from here on to stdout and stderr; the
// progress interval stays the one Prepare chose for the terminal.
func (pr *Prepared) Output(stdout, stderr io.Writer) { pr.cfg.Stdout, pr.cfg.Stderr = stdout, stderr }

// Close gives up a prepared run without running it: nothing was loaded.
func (pr *Prepared) Close() { pr.closeLog() }

// Execute runs the load and writes the results; it returns the exit code.
func (pr *Prepared) Execute(ctx context.Context) int {
	defer pr.closeLog()
	run, cfg := pr.Run, pr.cfg
	hold := time.Duration(0)
	if pr.Script.Options.Hold != "" {
		hold, _ = time.ParseDuration(pr.Script.Options.Hold)
	}
	if !cfg.Segment.Split() || cfg.SetupOnly {
		if err := writeSetup(run); err != nil {
			fmt.Fprintln(cfg.Stderr, "imbench:", err)
			return ExitFailed
		}
		defer run.teardown(ctx, cfg.Stdout, cfg.Stderr)
		progress := func(msg string) { pr.log.Info("setup: " + msg) }
		var err error
		if run.Setup, err = run.Driver.Setup(ctx, progress); err != nil {
			if ctx.Err() != nil {
				fmt.Fprintln(cfg.Stderr, "imbench: interrupted during setup")
				return ExitInterrupted
			}
			fmt.Fprintf(cfg.Stderr, "imbench: setup on %s: %v\n", run.Target.Name, err)
			return ExitFailed
		}
		for _, w := range run.Setup.Warnings {
			fmt.Fprintf(cfg.Stderr, "imbench: setup on %s: %s\n", run.Target.Name, w)
			pr.log.Warn("setup: " + w)
		}
	}
	if cfg.SetupOnly {
		if err := writeSetup(run); err != nil {
			fmt.Fprintln(cfg.Stderr, "imbench:", err)
			return ExitFailed
		}
		fmt.Fprintf(cfg.Stdout, "imbench: run %s set up on %s: %d users (%d new), %d friendships, %d groups\n",
			run.ID, endpoint(run), run.Plan.Users, run.Setup.Registered, run.Setup.Friendships, run.Setup.Groups)
		return ExitOK
	}
	run.StartedAt = time.Now() // what ran, not the setup: a whole run and a segment measure alike
	run.self = startSelfUsage()
	if run.Opts.Progress > 0 {
		run.progress = startProgress(run, cfg.Stderr, run.Opts.Progress)
	}
	lo, hi := cfg.Segment.VUs(run.Opts.VUs)
	base := map[string]string{"run_id": run.ID, "target": run.Target.Name, "system": run.Target.System,
		"scenario": run.Plan.Name, "instance": cfg.Instance}
	var server *targetProcs
	if cfg.Segment.Index == 0 { // one process of a split run measures the server
		var eps []string
		for _, name := range run.Protocol.Endpoints {
			eps = append(eps, run.Target.Endpoints[name])
		}
		server = newTargetProcs(eps, cfg.TargetProcesses)
	}
	run.mu.Lock()
	run.metrics = startPusher(run, promrw.New(cfg.PromWrite, cfg.Env, func(f string, a ...any) { pr.log.Warn(fmt.Sprintf(f, a...)) }),
		base, hi-lo+1, cfg.PushEvery, server)
	run.mu.Unlock()

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := make([]*worker, 0, hi-lo+1)
	for vu := lo; vu <= hi; vu++ {
		ulo, uhi, _ := run.Plan.UserRange(vu, run.Opts.VUs) // 1 ≤ vu ≤ VUs: no error
		workers = append(workers, &worker{run: run, s: run.Shared.NewSession(runCtx, ulo, uhi), ctx: runCtx, cancel: cancel, local: hi - lo + 1})
	}
	var wg sync.WaitGroup
	errs := make([]error, len(workers))
	for i, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = w.do(hold)
		}()
	}
	wg.Wait()
	run.reconciled()
	rec := run.checkStore(ctx, cfg.Stderr)
	run.progress.Stop()
	run.metrics.finish(rec)

	code := ExitOK
	var aborted, failed error
	for _, err := range errs {
		switch {
		case errors.Is(err, errAborted):
			aborted = err
		case err != nil && !errors.Is(err, context.Canceled) && failed == nil:
			failed = err
		}
	}
	switch {
	case aborted != nil:
		fmt.Fprintln(cfg.Stderr, "imbench:", aborted)
		code = ExitAborted
	case ctx.Err() != nil:
		fmt.Fprintln(cfg.Stderr, "imbench: interrupted; the results so far follow")
		code = ExitInterrupted
	case failed != nil:
		fmt.Fprintln(cfg.Stderr, "imbench:", failed)
		code = ExitFailed
	}
	s := run.BuildSummary()
	file, err := writeSummary(run, s)
	if err != nil {
		fmt.Fprintln(cfg.Stderr, "imbench:", err)
		return ExitFailed
	}
	if cfg.Segment.Split() {
		fmt.Fprintf(cfg.Stdout, "imbench: segment %s: %d of %d deliveries it awaited arrived; part summary %s\n",
			cfg.Segment, s.Deliveries.Received, s.Deliveries.Expected, file)
		return code
	}
	if c := Finish(pr.Script, s, filepath.Dir(file), cfg.NoThresholds, cfg.Stdout, cfg.Stderr); code == ExitOK {
		code = c
	}
	return code
}

// SetupFile is the run's setup record (SetupRecord): what it makes on its
// target, and for the merge of a split run's segments what it registered.
const SetupFile = "setup.json"

func writeSetup(run *Run) error {
	raw, _ := json.Marshal(run.setupRecord())
	if err := os.MkdirAll(run.resultDir(), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(run.resultDir(), SetupFile), append(raw, '\n'), 0o644)
}

// writeSummary writes summary.json, or a segment's part file.
func writeSummary(run *Run, s summary.Summary) (string, error) {
	raw, invalid := summary.Encode(&s)
	if raw == nil {
		return "", invalid
	}
	dir := run.resultDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := "summary.json"
	if run.Segment != "" {
		name = summary.PartFile(run.Segment)
	}
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, raw, 0o644); err != nil {
		return f, err
	}
	return f, invalid
}

// Finish ends a whole run, or a merged split one: the thresholds, then the
// table (or what the scenario's handleSummary returns instead, given the
// summary with the thresholds' results) and its files. It returns
// ExitThresholds when one was crossed, ExitFailed when handleSummary or a
// threshold failed.
func Finish(sc *Script, s summary.Summary, dir string, noThresholds bool, stdout, stderr io.Writer) int {
	code := ExitOK
	var rs []ThresholdResult
	if !noThresholds {
		var own map[string]Expressions
		if sc != nil {
			own = sc.Options.Thresholds
		}
		all, implicit := effectiveThresholds(own)
		var err error
		if rs, err = CheckThresholds(all, &s); err != nil {
			fmt.Fprintln(stderr, "imbench:", err)
			return ExitFailed
		}
		for i := range rs {
			rs[i].Implicit = implicit[rs[i].Metric]
		}
		if err := summary.SaveThresholds(dir, rs); err != nil {
			fmt.Fprintln(stderr, "imbench:", err)
			code = ExitFailed
		}
	}
	out := map[string]string{"stdout": s.Table() + "\nsummary: " + filepath.Join(dir, "summary.json") + "\n"}
	if sc != nil {
		var plain map[string]any
		raw, _ := json.Marshal(s)
		_ = json.Unmarshal(raw, &plain)
		rraw, _ := json.Marshal(rs)
		var rplain any
		_ = json.Unmarshal(rraw, &rplain)
		plain["thresholds"] = rplain
		files, ok, err := sc.HandleSummary(plain)
		switch {
		case err != nil:
			fmt.Fprintln(stderr, "imbench:", err)
			code = ExitHandleSummary
		case ok:
			out = files
		}
	}
	fmt.Fprint(stdout, out["stdout"])
	fmt.Fprint(stderr, out["stderr"])
	for _, name := range slices.Sorted(maps.Keys(out)) {
		if name == "stdout" || name == "stderr" {
			continue
		}
		if err := writeOutput(dir, name, out[name]); err != nil {
			fmt.Fprintln(stderr, "imbench: handleSummary:", err)
			code = ExitHandleSummary
			continue
		}
		fmt.Fprintf(stdout, "imbench: handleSummary wrote %s\n", filepath.Join(dir, name))
	}
	fmt.Fprint(stdout, ThresholdLines(rs))
	var crossed []string
	for _, r := range rs {
		if !r.Passed {
			crossed = append(crossed, r.Metric+" "+r.Expr)
		}
	}
	if len(crossed) > 0 {
		sort.Strings(crossed)
		fmt.Fprintf(stderr, "imbench: thresholds crossed: %s\n", strings.Join(crossed, ", "))
		return ExitThresholds
	}
	return code
}

// writeOutput writes one of handleSummary's files: a relative name inside
// the run's folder, an absolute path where it says (as k6 does). A
// relative name leaving the folder, and the runner's own files however
// named, are refused (the report and the merge read what is there).
func writeOutput(dir, name, content string) error {
	f, err := outputPath(dir, name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		return err
	}
	return os.WriteFile(f, []byte(content), 0o644)
}

// outputPath is where one of handleSummary's names goes in the run's
// folder dir, or why it may not be written.
func outputPath(dir, name string) (string, error) {
	clean := filepath.Clean(name)
	f := clean
	if !filepath.IsAbs(clean) {
		if clean == ".." || strings.HasPrefix(clean, "../") {
			return "", fmt.Errorf("%q: a relative name is inside the run's folder; give an absolute path for a file elsewhere", name)
		}
		f = filepath.Join(dir, clean)
	}
	// The run's own files stay the runner's, however they are named.
	if rel, err := filepath.Rel(dir, f); err == nil && (rel == "summary.json" || rel == summary.ThresholdsFile || rel == SetupFile || rel == TeardownFile || strings.HasPrefix(rel, "summary-")) {
		return "", fmt.Errorf("%q: that is the runner's own file", name)
	}
	return f, nil
}

// checkOutputNames asks handleSummary, before any load, what it would
// write for a summary of zeros, and refuses a name no run may write. One
// that throws on zeros is asked again at the end, as ever.
func checkOutputNames(sc *Script) error {
	if sc.handleSummary == nil {
		return nil
	}
	var plain map[string]any
	raw, _ := json.Marshal(summary.Summary{})
	_ = json.Unmarshal(raw, &plain)
	plain["thresholds"] = []any{}
	out, _, err := sc.HandleSummary(plain)
	if err != nil {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(out)) {
		if name == "stdout" || name == "stderr" {
			continue
		}
		if _, err := outputPath("/run", name); err != nil {
			return fmt.Errorf("%s: handleSummary would write %w", sc.Path, err)
		}
	}
	return nil
}

// endpoint is the target's first endpoint, where it was set up.
func endpoint(r *Run) string { return r.Target.Endpoints[r.Protocol.Endpoints[0]] }
