package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/cpulimit"
	"github.com/imbench/imbench/internal/procgroup"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/promrw"
	"github.com/imbench/imbench/internal/stack"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/limit"
	"github.com/imbench/imbench/load/runner"
	"github.com/imbench/imbench/report"
	"github.com/imbench/imbench/report/live"
)

// `imbench limit`: a limit search over a scenario (load/limit). Every step
// is a whole run of the scenario at one load, in this process, with every
// delivery verified; the search's own results go to results/<search id>,
// each step's to results/<search id>_s<n>.

type limitConfig struct {
	rc        *runConfig
	params    limit.Params
	objective limit.Objective
	step      time.Duration // sending per step (rate), holding (users)
	quiet     bool
	// beforeStep is a shell command run before each step (a server's
	// restart, for one whose capacity falls as its store fills).
	beforeStep string
}

func cmdLimit(args []string) (int, error) {
	lc, err := parseLimit(args)
	if err != nil {
		return 0, err
	}
	if err := checkScenario(lc.rc); err != nil {
		return 0, err
	}
	if err := preflight(lc.rc); err != nil {
		return 0, err
	}
	return runLimit(lc)
}

func parseLimit(args []string) (*limitConfig, error) {
	fs := flag.NewFlagSet("limit", flag.ContinueOnError)
	var (
		scenario   = fs.String("scenario", "", "the scenario whose load rises (required)")
		target     = fs.String("target", "reference", "target profile under targets/")
		protocol   = fs.String("protocol", "", "the protocol to speak, where the target speaks several")
		scale      = fs.String("scale", "", "scales the scenario's users (its rate is the search's)")
		slo        = fs.String("slo", "e2e_p99<1000,lost==0,late==0,unchecked==0", "the objective every step must meet: conditions on the run's figures, as thresholds name them")
		dimension  = fs.String("dimension", "rate", "what rises: rate (the open classes' messages a second) or users (users held online: a hold scenario)")
		start      = fs.Float64("start", 0, "the first step's load (default: 100 msg/s, or 1,000 users)")
		factor     = fs.Float64("factor", 2, "each step that holds multiplies the load by this, until one breaks")
		resolution = fs.Float64("resolution", 0.05, "narrow the interval between the last load held and the first broken to this share")
		most       = fs.Float64("max", 0, "the most load to try (0: no cap)")
		step       = fs.Duration("step", 30*time.Second, "how long each step sends (rate) or holds (users)")
		maxSteps   = fs.Int("max-steps", 20, "the most steps the search makes")
		retries    = fs.Int("retries", 2, "how many times a step that broke while other processes took the machine's cores runs again at its load before the search is undetermined on this machine (-1: none)")
		confirm    = fs.Bool("confirm", true, "run the knee and the limit found once more before reporting them")
		runID      = fs.String("run-id", "", "the search's id (default: generated); step n is <id>_s<n>")
		results    = fs.String("results", "results", "results folder")
		quiet      = fs.Bool("q", false, "no progress lines within a step")
		beforeStep = fs.String("before-step", "", "a shell command run before each step, e.g. one that restarts the server with an empty store; a step does not start unless it exits 0")
	)
	if err := fs.Parse(args); err != nil {
		return nil, badinput.Wrap(err)
	}
	if fs.NArg() > 0 {
		return nil, badinput.Errorf("unexpected arguments %q", fs.Args())
	}
	runArgs := []string{"-scenario", *scenario, "-target", *target, "-results", *results, "-q"}
	for flagName, v := range map[string]string{"-protocol": *protocol, "-scale": *scale, "-run-id": *runID} {
		if v != "" {
			runArgs = append(runArgs, flagName, v)
		}
	}
	rc, err := parseRun(runArgs)
	if err != nil {
		return nil, err
	}
	// The scenario's own search (options.limit) fills what no flag set.
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	env := map[string]string{}
	for _, kv := range rc.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	sc, err := runner.Load(rc.script, env, rc.runID)
	if err != nil {
		return nil, badinput.Errorf("%v", err)
	}
	if lo := sc.Options.Limit; lo != nil {
		str := func(name string, dst *string, v string) {
			if !set[name] && v != "" {
				*dst = v
			}
		}
		num := func(name string, dst *float64, v float64) {
			if !set[name] && v != 0 {
				*dst = v
			}
		}
		str("slo", slo, lo.Objective)
		str("dimension", dimension, lo.Dimension)
		num("start", start, lo.Start)
		num("max", most, lo.Max)
		num("factor", factor, lo.Factor)
		num("resolution", resolution, lo.Resolution)
		if !set["step"] && lo.Step != "" {
			d, err := time.ParseDuration(lo.Step)
			if err != nil {
				return nil, badinput.Errorf("%s: options.limit.step %q is not a duration", rc.scenario, lo.Step)
			}
			*step = d
		}
	}
	if *step < 5*time.Second || *step > time.Hour {
		return nil, badinput.Errorf("STEP must be within 5s..1h, got %s", *step)
	}
	lc := &limitConfig{rc: rc, step: *step, quiet: *quiet, beforeStep: strings.TrimSpace(*beforeStep),
		params: limit.Params{Dimension: *dimension, Start: *start, Factor: *factor, Resolution: *resolution, Max: *most, MaxSteps: *maxSteps, Retries: *retries,
			Restarted: strings.TrimSpace(*beforeStep) != ""}}
	if !*confirm {
		lc.params.Confirm = -1
	}
	if lc.params.Start == 0 {
		lc.params.Start = 100
		if lc.params.Dimension == "users" {
			lc.params.Start = 1000
		}
	}
	lc.params.Defaults()
	if err := lc.params.Validate(); err != nil {
		return nil, badinput.Errorf("%v", err)
	}
	if lc.objective, err = limit.ParseObjective(*slo); err != nil {
		return nil, badinput.Errorf("%v", err)
	}
	// The search's steps are named <id>_s<n>: the id leaves room for them.
	if len(rc.runID) > 28 {
		return nil, badinput.Errorf("the search's id %q leaves no room for its steps' (<id>_s<n>): 28 characters at most", rc.runID)
	}
	return lc, nil
}

func runLimit(lc *limitConfig) (int, error) {
	rc := lc.rc
	searchID := rc.runID
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	obs := rc.observation()
	defer obs.Done()
	fmt.Printf("imbench: limit search %s: %s on %s (%s), %s rising from %g by ×%g to a resolution of %g %%; objective %s; %s a step\n",
		searchID, rc.scenario, rc.target.Name, rc.where(), lc.params.Dimension, lc.params.Start, lc.params.Factor,
		lc.params.Resolution*100, lc.objective.Text, lc.step)
	for _, n := range obs.Notes {
		fmt.Println("imbench:", n)
	}
	groups := append(profile.StackGroupsList(), rc.target.Processes...)
	ports := procgroup.Ports(slices.Collect(maps.Values(rc.endpoints)))
	slices.Sort(ports) // said in order, whatever the map's
	sampler, err := procgroup.Start(groups, time.Second, ports...)
	if err != nil {
		return 0, err
	}
	defer sampler.Stop()
	if line := measuredLine(sampler, ports); line != "" {
		fmt.Println("imbench: " + line)
	}
	gen := startSelfSampler()
	defer gen.stop()
	roles := componentRoles(rc.target)
	prom := &report.Prom{URL: "http://" + stack.Addrs().Prometheus}

	stepFn := func(ctx context.Context, n int, asked float64) (limit.Step, error) {
		src := *rc
		src.runID = stepID(searchID, n)
		src.env = append(append([]string(nil), rc.env...), lc.stepEnv(asked)...)
		src.env = append(src.env, "IM_RUN_ID="+src.runID)
		dir := filepath.Join(rc.resultsDir, src.runID)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return limit.Step{}, err
		}
		logf, err := os.Create(filepath.Join(dir, "step.log"))
		if err != nil {
			return limit.Step{}, err
		}
		defer logf.Close()
		cfg := src.runnerConfig(obs)
		cfg.NoThresholds = true // the objective judges the step
		cfg.Stdout, cfg.Stderr = logf, logf
		if !lc.quiet {
			cfg.Stderr = io.MultiWriter(logf, os.Stderr)
		}
		prep, err := runner.Prepare(ctx, cfg)
		if err != nil {
			return limit.Step{}, fmt.Errorf("step %d: %w", n, err)
		}
		if planned := prep.Run.Plan.Rate; lc.params.Dimension == "rate" && math.Abs(planned-asked) > 0.01*asked {
			prep.Close()
			return limit.Step{}, badinput.Errorf("step %d would plan %.1f msg/s where the search asks %g: the scenario does not take its rate "+
				"from IM_RATE (a workload spreads ...planKnobs(__ENV); its open classes share the rate)", n, planned, asked)
		}
		t0, quota := cpulimit.OwnThrottle()
		code := prep.Execute(ctx)
		s, err := summary.Load(filepath.Join(dir, "summary.json"))
		if err != nil {
			return limit.Step{}, fmt.Errorf("step %d ended (exit %d) with no summary: %w (%s)", n, code, err, filepath.Join(dir, "step.log"))
		}
		if code == runner.ExitAborted || code == runner.ExitInterrupted {
			return limit.Step{}, fmt.Errorf("step %d: the run ended early (exit %d): see %s", n, code, filepath.Join(dir, "step.log"))
		}
		st := stepOf(n, asked, src.runID, s, lc.params.Dimension)
		from, to := stepWindow(s, lc.params.Dimension)
		st.GeneratorCores = gen.cores(from, to)
		if t1, ok := cpulimit.OwnThrottle(); ok && quota {
			st.GeneratorThrottled = math.Round(t1.Share(t0)*1000) / 1000
		}
		st.MachineBusy = sampler.MachineBusy(from, to)
		st.MachineStolen = sampler.MachineStolen(from, to)
		st.Usage = stepUsage(ctx, prom, sampler, s, roles, from, to)
		st.Left = leftBy(dir)
		return st, nil
	}
	report := func(st limit.Step) {
		fmt.Println("imbench: " + limit.StepLine(st, lc.params.Dimension))
	}
	own := cpulimit.Own()
	cores := procgroup.MachineCores() // the machine's, not this process's affinity (LIMIT_CPUS)
	machine := limit.Machine{Cores: cores, GeneratorCores: own.Cores, GeneratorCoresWhy: own.Why}
	var nofile syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &nofile) == nil {
		machine.GeneratorOpenFiles = nofile.Cur
	}
	if own.Cores < float64(cores) {
		fmt.Printf("imbench: the generator may use %s cores: %s\n", strconv.FormatFloat(own.Cores, 'f', -1, 64), own.Why)
	}
	var prev *limit.Step
	series := newSearchSeries(obs.PromWrite, searchID, rc.scenario, rc.target.Name)
	view := live.StartView(rc.target.Name, targetComponents(rc.target))
	defer view.Stop()
	lo, hi := 0.0, 0.0
	res, err := limit.Run(ctx, lc.params, lc.objective, machine, func(ctx context.Context, n int, asked float64) (limit.Step, error) {
		if lc.beforeStep != "" {
			if err := runBeforeStep(ctx, lc.beforeStep, filepath.Join(rc.resultsDir, stepID(searchID, n)), n, asked); err != nil {
				return limit.Step{}, err
			}
			sampler.Rediscover() // a restarted server has other PIDs
		}
		var settled time.Duration
		if prev != nil && !prev.Held {
			settled = settle(ctx, sampler, rc.target)
		}
		if prev != nil && prev.Disturbed != "" {
			settled += quiet(ctx, sampler, gen, cores)
		}
		fmt.Printf("imbench: step %d: %s\n", n, limit.LoadText(asked, lc.params.Dimension))
		series.starting(n, asked)
		view.ShowStep(searchID, stepID(searchID, n), fmt.Sprintf("limit search %s, step %d: %s asked (%s); held so far %s, broken %s; objective %s",
			searchID, n, limit.LoadText(asked, lc.params.Dimension), rc.scenario+" on "+rc.target.Name,
			limit.LoadText(lo, lc.params.Dimension), limit.LoadText(hi, lc.params.Dimension), lc.objective.Text), time.Now())
		st, err := stepFn(ctx, n, asked)
		st.Settled = math.Round(settled.Seconds()*10) / 10
		return st, err
	}, func(st limit.Step) {
		prev = &st
		if st.Held {
			lo = max(lo, st.Asked)
		} else if hi == 0 || st.Asked < hi {
			hi = st.Asked
		}
		series.judged(st, lo, hi)
		report(st)
	})
	if err != nil && len(res.Steps) == 0 {
		return 0, err // nothing ran: no search to report
	}
	res.SearchID, res.Scenario, res.Target, res.BeforeStep = searchID, rc.scenario, rc.target.Name, lc.beforeStep
	dir := filepath.Join(rc.resultsDir, searchID)
	if werr := limit.Write(dir, res); werr != nil {
		return 0, werr
	}
	fmt.Print(limit.Table(res))
	fmt.Printf("imbench: %s\nimbench: search in %s (limit.json, limit.md, limit.html)\n", limit.ResultLine(res), dir)
	for _, st := range res.Steps {
		if st.Left != "" {
			fmt.Printf("imbench: step %d (run %s) left %s on %s: make clean-target RUN=%s removes them\n", st.N, st.RunID, st.Left, rc.target.Name, st.RunID)
		}
	}
	if err != nil {
		return 1, nil
	}
	if res.Limit == 0 && !res.GeneratorLimited {
		return runner.ExitThresholds, nil // not even the smallest load held
	}
	return 0, nil
}

// stepID is step n's run id: <search id>_s<n>.
func stepID(searchID string, n int) string { return fmt.Sprintf("%s_s%d", searchID, n) }

// runBeforeStep runs the -before-step command for step n, its output in
// the step's folder (before-step.log); IMBENCH_STEP and IMBENCH_LOAD tell
// it which step and load come next.
func runBeforeStep(ctx context.Context, command, dir string, n int, asked float64) error {
	fmt.Printf("imbench: step %d: before it, %s\n", n, command)
	err := runHook(ctx, command, filepath.Join(dir, "before-step.log"), os.Environ(),
		"IMBENCH_STEP="+strconv.Itoa(n), "IMBENCH_LOAD="+strconv.FormatFloat(asked, 'f', -1, 64))
	if err != nil {
		return fmt.Errorf("step %d: the before-step command %w", n, err)
	}
	return nil
}

// runHook runs a user's shell command (a before-step or a server's before)
// in its own process group, its output in logPath. Ten minutes at most.
func runHook(ctx context.Context, command, logPath string, env []string, extra ...string) error {
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Env = append(slices.Clone(env), extra...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("failed (%v): see %s", err, logPath)
	}
	return nil
}

// settle waits, after a step that broke the objective, for the server to
// work off what it still held (a backlog would weigh on the next step):
// until its processes here (the listening owners of the run's ports, not
// every process of their name) use less than a fifth of a core for 3 s,
// or for a minute where none of them runs here. At most 3 minutes; it
// says how long it waited.
func settle(ctx context.Context, sampler *procgroup.Sampler, t profile.Profile) (waited time.Duration) {
	fmt.Println("imbench: the last step broke the objective: waiting for the server to settle")
	start := time.Now()
	deadline := start.Add(3 * time.Minute)
	seen := false
	defer func() {
		waited = time.Since(start)
		fmt.Printf("imbench: waited %.0f s for the server to settle\n", waited.Seconds())
	}()
	for time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(time.Second)
		now := time.Now()
		var busy float64
		found := false
		for _, u := range sampler.Window(now.Add(-3*time.Second), now) {
			for _, p := range t.Processes {
				if p.Group == u.Group {
					busy = max(busy, u.CPUBusiest)
					found = true
				}
			}
		}
		seen = seen || found
		if found && busy < 20 {
			return
		}
		if !seen && now.After(deadline.Add(-2*time.Minute)) {
			return // not on this machine: a minute is all it gets
		}
	}
	return
}

// quiet waits, before a step runs again because other processes took the
// machine's cores, for them to take less than a quarter of its cores over
// 3 s: at most a minute. It says how long it waited and what they took.
func quiet(ctx context.Context, sampler *procgroup.Sampler, gen *selfSampler, cores int) time.Duration {
	start := time.Now()
	var others float64
	for time.Since(start) < time.Minute && ctx.Err() == nil {
		time.Sleep(time.Second)
		now := time.Now()
		from := now.Add(-3 * time.Second)
		if from.Before(start) {
			continue
		}
		busy := 100 * sampler.MachineBusy(from, now) * float64(cores)
		others = busy - 100*gen.cores(from, now)
		for _, u := range sampler.Window(from, now) {
			others -= u.CPUAvg // the stack's and the server's parts
		}
		if others < 25*float64(cores) {
			break
		}
	}
	waited := time.Since(start)
	fmt.Printf("imbench: waited %.0f s for the machine's other processes to quiet (they took %.0f %% of one core at the end); the step's load runs again\n",
		waited.Seconds(), max(others, 0))
	return waited
}

// pinned is a part's allowed CPUs where fewer than the machine's, else 0.
func pinned(cpus int) int {
	if cpus >= procgroup.MachineCores() {
		return 0
	}
	return cpus
}

// pinnedSet is a part's CPU list where it names fewer than the machine's
// CPUs, else "".
func pinnedSet(list string) string {
	if pinned(procgroup.CountCPUs(list)) == 0 {
		return ""
	}
	return list
}

// measuredLine says which processes the search measures as the target:
// the owners of the run's ports, and how many of their name it leaves to
// the machine ("" for a target not on this machine).
func measuredLine(s *procgroup.Sampler, ports []int) string {
	owners := s.Owners()
	if len(owners) == 0 {
		return ""
	}
	var parts []string
	for _, o := range owners {
		parts = append(parts, fmt.Sprintf("%s (PID %d)", o.Component, o.PID))
	}
	line := fmt.Sprintf("the target measured: %s, listening on the run's ports %s", strings.Join(parts, ", "), intsText(ports))
	if others := s.OthersOfName(); others > 0 {
		line += fmt.Sprintf("; %d other %s of that name on this machine %s as the machine", others, plural(others, "process", "processes"), plural(others, "counts", "count"))
	}
	return line
}

func intsText(v []int) string {
	var out []string
	for _, x := range v {
		out = append(out, strconv.Itoa(x))
	}
	return strings.Join(out, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// stepEnv sets a step's load: the open classes' rate and the sending time,
// or the users held and the holding time.
func (lc *limitConfig) stepEnv(asked float64) []string {
	if lc.params.Dimension == "users" {
		return []string{"IM_USERS=" + strconv.Itoa(int(asked)), "IM_HOLD=" + lc.step.String()}
	}
	return []string{"IM_RATE=" + strconv.FormatFloat(asked, 'f', -1, 64), "IM_DURATION=" + lc.step.String()}
}

// stepOf reads a step's figures off its summary.
func stepOf(n int, asked float64, runID string, s summary.Summary, dim string) limit.Step {
	m, d := s.Messages, s.Deliveries
	st := limit.Step{N: n, Asked: asked, RunID: runID, Summary: s, Expected: d.Expected, Lost: d.Lost, Late: d.Late, Unchecked: d.Unchecked, Unanswered: m.Unanswered,
		Unsent: m.Unsent, Online: s.Users.OnlinePeak,
		E2EP50: s.Latency.E2E.P50, E2EP99: s.Latency.E2E.P99, AckAvg: s.Latency.Ack.Avg, AckP50: s.Latency.Ack.P50, AckP99: s.Latency.Ack.P99}
	secs := float64(m.LastSendMs-m.FirstSendMs) / 1000
	if secs > 0 {
		st.Achieved = float64(m.Sent) / secs
		st.Acked = float64(m.Acked) / secs
		st.Deliveries = float64(d.Received) / secs
	}
	if dim == "users" {
		st.Achieved = float64(s.Users.OnlinePeak)
	}
	return st
}

// stepWindow is what a step's usage is read over: its sending, or the run.
func stepWindow(s summary.Summary, dim string) (time.Time, time.Time) {
	m := s.Messages
	if dim == "rate" && m.LastSendMs > m.FirstSendMs {
		return time.UnixMilli(m.FirstSendMs), time.UnixMilli(m.LastSendMs)
	}
	return s.StartedAt, s.EndedAt
}

// componentRoles maps process groups to their role in a step's usage.
func componentRoles(t profile.Profile) map[string]string { return report.Roles(targetComponents(t)) }

// stepUsage is the server's parts' CPU and memory over a step's window,
// the resource table's process groups: sampled from /proc here every
// second where the server runs on this machine (per process, which a
// group's sum cannot tell: its busiest process); else Prometheus' series
// of the resource table, where it answers (a server on another host with
// its own exporters). The generator's own row is left out: this process's
// CPU is the step's GeneratorCores.
func stepUsage(ctx context.Context, prom *report.Prom, sampler *procgroup.Sampler, s summary.Summary, roles map[string]string, from, to time.Time) []limit.Usage {
	var out []limit.Usage
	local := false
	for _, u := range sampler.Window(from, to) {
		role := roles[u.Group]
		if role == "" || role == "generator" {
			continue
		}
		local = local || role == "target"
		out = append(out, limit.Usage{Component: u.Group, Role: role, Processes: u.Processes, PIDs: u.PIDs, Others: u.Others,
			OpenFiles: u.FDPeak, OpenFilesLimit: u.FDLimit, CPUs: pinned(u.CPUs), CPUSet: pinnedSet(u.CPUSet), CPUAvg: u.CPUAvg, CPUPeak: u.CPUPeak,
			CPUBusiest: u.CPUBusiest, CPUBusiestThread: u.CPUBusiestThread,
			ThreadRunnable: u.ThreadRunnable, ThreadWaiting: u.ThreadWaiting, RSSAvg: u.RSSAvg, RSSPeak: u.RSSPeak, RSSGrowth: u.RSSGrown})
	}
	if local || !prom.Ready(ctx) {
		return out
	}
	fctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	time.Sleep(6 * time.Second) // the recording rules' next evaluation covers the window's end
	if series, err := report.Fetch(fctx, *prom, s.RunID, s.Target, from, to, roles); err == nil && len(series.Resources) > 0 {
		return usageOf(series)
	}
	return out
}

// usageOf is a step's usage from the resource table's series: its rows,
// and each part's memory growth from the memory chart's line.
func usageOf(s *report.Series) []limit.Usage {
	growth := map[string]float64{}
	for _, c := range s.Charts {
		if c.Title != "Resident memory per component" {
			continue
		}
		for _, l := range c.Lines {
			if n := len(l.Points); n >= 4 {
				q := n / 4
				var first, last float64
				for i := 0; i < q; i++ {
					first += l.Points[i][1] / float64(q)
					last += l.Points[n-1-i][1] / float64(q)
				}
				growth[l.Name] = last - first
			}
		}
	}
	var out []limit.Usage
	for _, r := range s.Resources {
		if r.Role == "generator" {
			continue
		}
		out = append(out, limit.Usage{Component: r.Component, Role: r.Role, Processes: r.Processes, CPUAvg: r.CPUAvg, CPUPeak: r.CPUPeak,
			RSSAvg: r.RSSAvg, RSSPeak: r.RSSPeak, RSSGrowth: growth[r.Component]})
	}
	return out
}

// selfSampler samples this process's CPU every second: the generator's.
type selfSampler struct {
	done  chan struct{}
	mu    sync.Mutex
	times []time.Time
	cpu   []float64
}

func startSelfSampler() *selfSampler {
	s := &selfSampler{done: make(chan struct{})}
	s.add()
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-t.C:
				s.add()
			}
		}
	}()
	return s
}

func (s *selfSampler) add() {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	s.mu.Lock()
	s.times = append(s.times, time.Now())
	s.cpu = append(s.cpu, float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9)
	s.mu.Unlock()
}

func (s *selfSampler) stop() { close(s.done) }

// cores is the process's CPU over [from, to], in cores.
func (s *selfSampler) cores(from, to time.Time) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	first, last := -1, -1
	for i, t := range s.times {
		if !t.Before(from) && !t.After(to) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || last <= first {
		return 0
	}
	return (s.cpu[last] - s.cpu[first]) / s.times[last].Sub(s.times[first]).Seconds()
}

// searchSeries writes a search's state to Prometheus (the dashboard's
// "Limit search" row): the step under way and its load, what each step
// achieved and whether it held, the limit and the knee so far.
type searchSeries struct {
	rw     *promrw.Writer
	labels map[string]string
}

func newSearchSeries(url string, searchID, scenario, target string) *searchSeries {
	if url == "" {
		return nil
	}
	return &searchSeries{rw: promrw.New(url, nil, func(f string, a ...any) { fmt.Fprintf(os.Stderr, "imbench: "+f+"\n", a...) }),
		labels: map[string]string{"search_id": searchID, "scenario": scenario, "target": target}}
}

func (s *searchSeries) write(values map[string]float64) {
	if s == nil {
		return
	}
	ts := s.rw.Stamp(time.Now())
	var out []promrw.TimeSeries
	for name, v := range values {
		out = append(out, promrw.TimeSeries{Labels: promrw.Labels(s.labels, name), Samples: []promrw.Sample{{Value: v, Timestamp: ts}}})
	}
	s.rw.Write(out)
}

// starting says a step began at a load.
func (s *searchSeries) starting(n int, asked float64) {
	s.write(map[string]float64{"imbench_limit_step": float64(n), "imbench_limit_asked": asked})
}

// judged says how a step ended, and the interval so far.
func (s *searchSeries) judged(st limit.Step, lo, hi float64) {
	held := 0.0
	if st.Held {
		held = 1
	}
	v := map[string]float64{"imbench_limit_achieved": st.Achieved, "imbench_limit_held": held, "imbench_limit_held_load": lo,
		"imbench_limit_step_e2e_p99_seconds": st.E2EP99 / 1000}
	if hi > 0 {
		v["imbench_limit_broken_load"] = hi
	}
	s.write(v)
}

// leftBy is what a step's clean-up left on its target, from its
// teardown.json ("" when it removed all it could, or wrote none).
func leftBy(dir string) string {
	raw, err := os.ReadFile(filepath.Join(dir, runner.TeardownFile))
	var rec runner.TeardownRecord
	if err != nil || json.Unmarshal(raw, &rec) != nil {
		return ""
	}
	return runner.LeftText(rec.Removed)
}
