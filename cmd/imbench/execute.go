package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/stack"
	"github.com/imbench/imbench/internal/stack/observe"
	"github.com/imbench/imbench/load/runner"
	"github.com/imbench/imbench/report/live"
)

// execute runs a checked scenario: in this process, or over SEGMENTS
// processes of this binary, or in the compose stack's runner container.
func execute(rc *runConfig) (int, error) {
	switch {
	case rc.onKube():
		return runKube(rc)
	case rc.segments > 1:
		return runSegments(rc)
	case stack.DockerAnswers() && rc.promWrite == "" && !rc.segment.Split() && !rc.setupOnly:
		return runCompose(rc)
	}
	return runHere(rc)
}

// runnerConfig is the runner's view of the run.
func (rc *runConfig) runnerConfig(obs observe.Observation) runner.Config {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for _, kv := range rc.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return runner.Config{Script: rc.script, Env: env, RunID: rc.runID, Segment: rc.segment, SetupOnly: rc.setupOnly, SplitInto: rc.splitInto,
		StartAt: rc.startAt, NoThresholds: rc.noThresholds, PromWrite: obs.PromWrite, LogPush: obs.LogPush, TargetProcesses: rc.target.Processes}
}

// runHere runs the scenario in this process.
func runHere(rc *runConfig) (int, error) {
	obs := rc.observation()
	defer obs.Done()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	prep, err := runner.Prepare(ctx, rc.runnerConfig(obs))
	if err != nil {
		return 0, badinput.Errorf("%v", err)
	}
	if rc.setupOnly {
		return prep.Execute(ctx), nil
	}
	if !rc.segment.Split() {
		rc.startConsole(obs, prep.Run.Plan.Name)
		defer rc.stopConsole()
		prep.Output(os.Stdout, os.Stderr)
	}
	fmt.Printf("imbench: run %s: %s on %s (%s)\n", rc.runID, rc.scenario, rc.target.Name, rc.where())
	if rc.segment.Split() {
		fmt.Printf("imbench: segment %s of the users\n", rc.segment)
	}
	for _, n := range obs.Notes {
		fmt.Println("imbench:", n)
	}
	started := time.Now()
	stopLive := func() {}
	if !rc.segment.Split() {
		stopLive = live.Start(rc.runID, rc.target.Name, rc.about(), started, targetComponents(rc.target))
	}
	stopProfile := cpuProfile(os.Getenv("IMBENCH_CPUPROFILE"))
	measured := measureTarget(rc)
	code := prep.Execute(ctx)
	stopProfile()
	stopLive()
	dir := filepath.Join(rc.resultsDir, rc.runID)
	measured(dir)
	if rc.segment.Split() {
		return code, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err == nil {
		return finishRun(rc, obs, dir, code)
	}
	if obs.Logs != "" {
		observe.PrintLogProblems(obs.Logs, rc.runID)
	}
	return code, nil
}

// finishRun ends a run that left its summary: the log's problems, the
// results/latest link, the report. A failed report makes a zero code 1.
func finishRun(rc *runConfig, obs observe.Observation, dir string, code int) (int, error) {
	if obs.Logs != "" {
		observe.PrintLogProblems(obs.Logs, rc.runID)
	}
	if err := runner.MarkLatest(rc.resultsDir, rc.runID); err != nil {
		return code, err
	}
	fmt.Printf("imbench: results in %s (results/latest)\n", dir)
	if r, err := writeReport(dir, false); err != nil {
		fmt.Fprintln(os.Stderr, "imbench: report:", err)
		if code == 0 {
			code = 1
		}
	} else {
		printReportPaths(r)
	}
	rc.sayVerdict(dir, code)
	return code, nil
}

// observation is where the run's metrics and log go: where -prometheus-rw-url
// and -log-push-url say, else the native stack's parts that answer.
func (rc *runConfig) observation() observe.Observation {
	if rc.promWrite != "" || rc.logPush != "" {
		return observe.Observation{PromWrite: rc.promWrite, LogPush: rc.logPush}
	}
	o := observe.Native(rc.runID)
	if rc.stackHome != "" {
		o.Notes = append(o.Notes, "the native stack here is "+rc.stackHome+"'s (another checkout): the run registers its target with it, this checkout's profile applied")
	}
	if o.PromWrite != "" {
		notes, release, err := stack.Follow(rc.target.Name)
		o.Release = release
		if err != nil {
			notes = append(notes, "the stack could not follow the run's target: "+err.Error())
		}
		o.Notes = append(o.Notes, notes...)
	}
	return o
}

// about says what runs where, for the live view.
func (rc *runConfig) about() string { return rc.scenario + " on " + rc.target.Name }

// cpuProfile writes the run's CPU profile (pprof) to file, when one is
// named: IMBENCH_CPUPROFILE=cpu.pprof, for `go tool pprof`.
func cpuProfile(file string) (stop func()) {
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, "imbench: IMBENCH_CPUPROFILE:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		fmt.Fprintln(os.Stderr, "imbench: IMBENCH_CPUPROFILE:", err)
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
