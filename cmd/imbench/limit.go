package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/stack"
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
	if err := runner.CheckResultsDir(lc.rc.resultsDir); err != nil {
		return 0, err
	}
	if err := preflight(lc.rc); err != nil {
		return 0, err
	}
	return runLimit(lc)
}

func runLimit(lc *limitConfig) (int, error) {
	rc := lc.rc
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	obs := rc.observation()
	defer obs.Done()
	fmt.Printf("imbench: limit search %s: %s on %s (%s), %s rising from %g by ×%g to a resolution of %g %%; objective %s; %s a step\n",
		rc.runID, rc.scenario, rc.target.Name, rc.where(), lc.params.Dimension, lc.params.Start, lc.params.Factor,
		lc.params.Resolution*100, lc.objective.Text, lc.step)
	for _, n := range obs.Notes {
		fmt.Println("imbench:", n)
	}
	view := live.StartView(rc.target.Name, targetComponents(rc.target))
	defer view.Stop()
	roles := report.Roles(targetComponents(rc.target))
	steps := limit.RunnerSteps{Config: func(runID string, env []string) runner.Config {
		src := *rc
		src.runID = runID
		src.env = append(slices.Clone(rc.env), env...)
		return src.runnerConfig(obs)
	}}
	if !lc.quiet {
		steps.Progress = os.Stderr
	}
	s := &limit.Search{ID: rc.runID, Scenario: rc.scenario, Target: rc.target, Ports: runPorts(rc),
		Sampled: append(profile.StackGroupsList(), rc.target.Processes...), Params: lc.params, Objective: lc.objective,
		StepTime: lc.step, ResultsDir: rc.resultsDir, BeforeStep: lc.beforeStep, Steps: steps, Out: os.Stdout, Roles: roles,
		RemoteUsage: report.StepUsage(report.Prom{URL: "http://" + stack.Addrs().Prometheus}, roles), PromWrite: obs.PromWrite,
		Showing: func(n int, runID, text string) { view.ShowStep(rc.runID, runID, text, time.Now()) }}
	res, err := s.Start(ctx)
	if len(res.Steps) == 0 {
		return 0, err // nothing ran: no search to report
	}
	dir := filepath.Join(rc.resultsDir, rc.runID)
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
	return res.ExitCode(), nil
}
