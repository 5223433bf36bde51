package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/load/runner"
	"github.com/imbench/imbench/load/segment"
	"github.com/imbench/imbench/report/live"
)

// runSegments runs a scenario as rc.segments processes of this binary,
// each holding one segment of the users (load/segment: no user is in two):
//
//  1. this process sets the target up (-setup-only);
//  2. the segment processes (imbench run -segment i/n) start and keep time
//     from a common -start-at, each tagged instance=segN so Prometheus holds
//     every process's series side by side and the recording rules add them;
//  3. their partial summaries merge into the run's summary.json, on which
//     the scenario's thresholds and handleSummary run.
//
// On Kubernetes an Indexed Job plays step 2 (runbooks/kubernetes.md).
func runSegments(rc *runConfig) (int, error) {
	dir := filepath.Join(rc.resultsDir, rc.runID)
	n := rc.segments
	obs := rc.observation()
	defer obs.Done()
	setup := *rc
	setup.setupOnly, setup.segments, setup.splitInto = true, 1, n
	if code, err := runHere(&setup); err != nil || code != 0 {
		if badinput.Is(err) {
			return 0, err // refused before anything was set up
		}
		if err == nil {
			err = fmt.Errorf("exit %d", code)
		}
		removeCreated(rc, rc.runnerConfig(obs).Env, dir, false) // what the setup made before it failed
		return 0, fmt.Errorf("setting the target up: %w", err)
	}
	fmt.Printf("imbench: run %s: %s on %s (%s), %d processes\n", rc.runID, rc.scenario, rc.target.Name, rc.where(), n)
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	startAt := time.Now().Add(3 * time.Second)
	procs := make([]*exec.Cmd, n)
	for i := 0; i < n; i++ {
		args := []string{"run", "-scenario", rc.scenario, "-target", rc.target.Name, "-protocol", rc.protocol,
			"-run-id", rc.runID, "-results", rc.resultsDir, "-segment", segment.Segment{Index: i, Count: n}.String(),
			"-start-at", fmt.Sprint(startAt.UnixMilli())}
		if obs.PromWrite != "" {
			args = append(args, "-prometheus-rw-url", obs.PromWrite)
		}
		if obs.LogPush != "" {
			args = append(args, "-log-push-url", obs.LogPush)
		}
		cmd := exec.Command(self, args...)
		cmd.Env = append(os.Environ(), rc.env...)
		log, err := os.Create(filepath.Join(dir, fmt.Sprintf("seg%d.log", i)))
		if err == nil {
			defer log.Close()
			cmd.Stdout, cmd.Stderr = log, log
			err = cmd.Start()
		}
		if err != nil {
			stopAll(procs[:i])
			return 0, err
		}
		procs[i] = cmd
	}
	rc.startConsole(obs, rc.scenario)
	defer rc.stopConsole()
	for _, note := range obs.Notes {
		fmt.Println("imbench:", note)
	}
	fmt.Printf("imbench: %d segment processes started; their output is in %s/seg*.log\n", n, dir)
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	var interrupted atomic.Bool
	go func() {
		for s := range sig {
			interrupted.Store(true)
			for _, p := range procs {
				p.Process.Signal(s)
			}
		}
	}()
	stopLive := live.Start(rc.runID, rc.target.Name, rc.about(), startAt, targetComponents(rc.target))
	defer stopLive() // the wait loop's early return
	code := 0
	for i, p := range procs {
		if err := p.Wait(); err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				code = max(code, ee.ExitCode())
				fmt.Fprintf(os.Stderr, "imbench: segment %d exited %d (see seg%d.log)\n", i, ee.ExitCode(), i)
				continue
			}
			stopAll(procs[i+1:])
			return 0, err
		}
	}
	stopLive()
	env := rc.runnerConfig(obs).Env
	c, err := runner.MergeAndFinish(rc.script, env, rc.runID, dir, n, rc.noThresholds, os.Stdout, os.Stderr)
	removeCreated(rc, env, dir, interrupted.Load())
	if err != nil {
		return max(code, 1), err
	}
	return finishRun(rc, obs, dir, max(code, c))
}

// stopAll kills the processes and waits for them.
func stopAll(procs []*exec.Cmd) {
	for _, p := range procs {
		p.Process.Kill()
	}
	for _, p := range procs {
		p.Wait()
	}
}

// removeCreated ends a split run as a whole run ends: what it made on the
// target goes, unless IM_KEEP=1 keeps it or the run was interrupted. Like a
// run's own teardown, a failure is said and never changes the exit code.
func removeCreated(rc *runConfig, env map[string]string, dir string, interrupted bool) {
	later := "make clean-target RUN=" + rc.runID + " removes them"
	switch {
	case env["IM_KEEP"] == "1":
		fmt.Printf("imbench: IM_KEEP=1: the run's users and groups stay on %s; %s\n", rc.target.Name, later)
		return
	case interrupted:
		fmt.Fprintf(os.Stderr, "imbench: interrupted: the run's users and groups stay on %s; %s\n", rc.target.Name, later)
		return
	}
	profiles, err := profile.Load("targets")
	if err != nil {
		fmt.Fprintln(os.Stderr, "imbench: clean-up:", err)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	getenv := func(k string) string { return env[k] }
	if _, err := runner.CleanTarget(ctx, dir, rc.target.Name, false, profiles, getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "imbench: clean-up: %v; %s\n", err, later)
	}
}
