package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/runid"
	"github.com/imbench/imbench/load/limit"
	"github.com/imbench/imbench/report"
	"github.com/imbench/imbench/report/comparison"
)

// `imbench compare-servers`: one workload on each server in turn, a fixed
// load and a limit search, side by side in one report (report/comparison).

type compareConfig struct {
	scenario, serversPath, results, id string
	servers                            []comparison.Server
	runArgs, limitArgs                 []string
	load, objective                    string
	noLimit, quiet                     bool
}

func parseCompareServers(args []string) (*compareConfig, error) {
	fs := flag.NewFlagSet("compare-servers", flag.ContinueOnError)
	var (
		scenario   = fs.String("scenario", "", "the workload every server runs: a catalog scenario or a .js file (required)")
		servers    = fs.String("servers", "", "the servers, in order: a YAML file of name, target, protocol, version, env, notes, before, before_step (required; runbooks/compare-servers.md)")
		rate       = fs.String("rate", "", "the fixed load's messages a second, the same on every server")
		duration   = fs.String("duration", "30s", "how long the fixed load sends")
		scale      = fs.String("scale", "", "scales the scenario's users, the same on every server")
		slo        = fs.String("slo", "e2e_p99<1000,lost==0,late==0,unchecked==0", "the limit searches' objective, the same for every server")
		start      = fs.String("start", "", "the searches' first load (default: the search's)")
		step       = fs.String("step", "", "how long each search step sends")
		resolution = fs.String("resolution", "", "the searches' resolution")
		most       = fs.String("max", "", "the most load a search tries")
		noLimit    = fs.Bool("no-limit", false, "run the fixed load only, no limit search")
		id         = fs.String("run-id", "", "the comparison's id (default: generated); server i's run is <id>_<i>r, its search <id>_<i>l")
		results    = fs.String("results", "results", "results folder")
		quiet      = fs.Bool("q", false, "no progress lines within a run")
	)
	if err := fs.Parse(args); err != nil {
		return nil, badinput.Wrap(err)
	}
	if fs.NArg() > 0 {
		return nil, badinput.Errorf("unexpected arguments %q", fs.Args())
	}
	if *scenario == "" || *servers == "" {
		return nil, badinput.Errorf("compare-servers needs -scenario and -servers (make compare-servers SCENARIO=… SERVERS=…)")
	}
	cc := &compareConfig{scenario: *scenario, serversPath: *servers, results: *results, id: *id, noLimit: *noLimit, quiet: *quiet, objective: *slo}
	if cc.id == "" {
		cc.id = runid.New()
	}
	if err := runid.Check(cc.id); err != nil || len(cc.id) > 25 {
		return nil, badinput.Errorf("comparison id %q: letters, digits and '_', 25 characters at most (its runs add _<i>r)", cc.id)
	}
	var err error
	if cc.servers, err = comparison.LoadServers(*servers, "targets"); err != nil {
		return nil, err
	}
	if _, err := limit.ParseObjective(*slo); err != nil {
		return nil, badinput.Errorf("%v", err)
	}
	cc.runArgs = []string{"-scenario", *scenario, "-duration", *duration, "-results", *results}
	cc.load = "for " + *duration
	if *rate != "" {
		cc.runArgs = append(cc.runArgs, "-rate", *rate)
		cc.load = *rate + " msg/s " + cc.load
	}
	if *scale != "" {
		cc.runArgs = append(cc.runArgs, "-scale", *scale)
		cc.load += ", scale " + *scale
	}
	cc.limitArgs = []string{"-scenario", *scenario, "-slo", *slo, "-results", *results}
	for name, v := range map[string]string{"start": *start, "step": *step, "resolution": *resolution, "max": *most, "scale": *scale} {
		if v != "" {
			cc.limitArgs = append(cc.limitArgs, "-"+name, v)
		}
	}
	if *quiet {
		cc.runArgs, cc.limitArgs = append(cc.runArgs, "-q"), append(cc.limitArgs, "-q")
	}
	return cc, nil
}

// cmdCompareServers runs the comparison, each run and search a process of
// this binary.
func cmdCompareServers(args []string) (int, error) {
	cc, err := parseCompareServers(args)
	if err != nil {
		return 0, err
	}
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	c := &comparison.Comparison{ID: cc.id, Scenario: cc.scenario, Load: cc.load, Objective: cc.objective, Servers: cc.servers,
		ResultsDir: cc.results, NoLimit: cc.noLimit, Runner: selfRunner{self: self, cc: cc}, Out: os.Stdout, Errs: os.Stderr}
	out, exit, err := c.Run(context.Background())
	if err != nil {
		if badinput.Is(err) {
			return 0, err
		}
		return 1, err
	}
	fmt.Print("\n" + report.ComparisonMarkdown(out) + "\n")
	fmt.Printf("imbench: comparison %s in %s (comparison.json, comparison.md, comparison.html)\n", cc.id, filepath.Join(cc.results, cc.id))
	return exit, nil
}

// selfRunner runs a server's runs and searches as processes of this binary.
type selfRunner struct {
	self string
	cc   *compareConfig
}

func (r selfRunner) Check(s comparison.Server, reach bool) error {
	check := "-check-only"
	if !reach {
		check = "-check-settings"
	}
	out, code := runSelf(r.self, s.Environ(), append(append([]string{"run", check, "-target", s.Target}, protoArg(s)...), r.cc.runArgs...))
	if code != 0 {
		return errors.New(lastLineOf(out))
	}
	return nil
}

func (r selfRunner) Run(s comparison.Server, runID string) (int, string) {
	args := append(append([]string{"run", "-target", s.Target, "-run-id", runID}, protoArg(s)...), r.cc.runArgs...)
	code := passSelf(r.self, s.Environ("IMBENCH_TARGET_USAGE=1"), args)
	_, line := verdict(filepath.Join(r.cc.results, runID), code)
	return code, strings.TrimPrefix(line, "imbench: verdict: "+runID+" ")
}

func (r selfRunner) Warm(s comparison.Server, runID string) int {
	args := append(append([]string{"run", "-target", s.Target, "-run-id", runID, "-no-thresholds"}, protoArg(s)...), r.cc.runArgs...)
	return passSelf(r.self, s.Environ(), append(args, "-duration", s.Warmup)) // the last -duration is the one taken
}

func (r selfRunner) Limit(s comparison.Server, searchID string) int {
	args := append(append([]string{"limit", "-target", s.Target, "-run-id", searchID}, protoArg(s)...), r.cc.limitArgs...)
	if s.BeforeStep != "" {
		args = append(args, "-before-step", s.BeforeStep)
	}
	return passSelf(r.self, s.Environ(), args)
}

func protoArg(s comparison.Server) []string {
	if s.Protocol == "" {
		return nil
	}
	return []string{"-protocol", s.Protocol}
}

// runSelf runs imbench with args, its output captured.
func runSelf(self string, env []string, args []string) (string, int) {
	cmd := exec.Command(self, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	case err != nil:
		return err.Error(), 1
	}
	return string(out), 0
}

// passSelf runs imbench with args, its output on this terminal.
func passSelf(self string, env []string, args []string) int {
	cmd := exec.Command(self, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, "imbench:", err)
		return 1
	}
	return 0
}

func lastLineOf(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimPrefix(lines[len(lines)-1], "imbench: ")
}
