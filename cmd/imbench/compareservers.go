package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/runid"
	"github.com/imbench/imbench/load/limit"
	"github.com/imbench/imbench/report"
)

// serversFile is the servers a comparison runs on, in order (servers.yaml).
type serversFile struct {
	Servers []serverSpec `yaml:"servers"`
}

// serverSpec is one server: a target profile, the protocol to speak, the
// settings of its profile (${VAR} taken from the environment: secrets
// stay out of the file), what the report should say differs, and the
// shell commands run before its turn (e.g. one that starts it afresh and
// leaves it alone on its cores) and before each step of its search.
type serverSpec struct {
	Name       string            `yaml:"name"`
	Target     string            `yaml:"target"`
	Protocol   string            `yaml:"protocol"`
	Env        map[string]string `yaml:"env"`
	Notes      []string          `yaml:"notes"`
	Version    string            `yaml:"version"` // the server's, as its operator knows it: no protocol here says it
	Before     string            `yaml:"before"`
	BeforeStep string            `yaml:"before_step"`
}

var serverName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,23}$`)

// loadServers reads and checks the servers file: every mistake is said
// before any server is contacted.
func loadServers(path string) ([]serverSpec, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, badinput.Errorf("servers file %s: %v", path, errors.Unwrap(err))
	}
	var f serversFile
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, badinput.Errorf("servers file %s: %v", path, err)
	}
	if len(f.Servers) < 1 || len(f.Servers) > 9 {
		return nil, badinput.Errorf("servers file %s: give 1 to 9 servers, not %d", path, len(f.Servers))
	}
	profiles, err := profile.Load("targets")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := range f.Servers {
		s := &f.Servers[i]
		switch {
		case !serverName.MatchString(s.Name):
			return nil, badinput.Errorf("servers file %s: server %d: name %q must be lower-case letters, digits and '-', at most 24", path, i+1, s.Name)
		case seen[s.Name]:
			return nil, badinput.Errorf("servers file %s: two servers are named %q", path, s.Name)
		case profiles[s.Target].Name == "":
			return nil, badinput.Errorf("servers file %s: %s: unknown target %q (known: %s)", path, s.Name, s.Target, strings.Join(profile.Names(profiles), ", "))
		}
		seen[s.Name] = true
		for k, v := range s.Env {
			if !strings.HasPrefix(k, "IM_") {
				return nil, badinput.Errorf("servers file %s: %s: env %s: only imbench's IM_* settings", path, s.Name, k)
			}
			var missing []string
			s.Env[k] = os.Expand(v, func(name string) string {
				val, ok := os.LookupEnv(name)
				if !ok {
					missing = append(missing, name)
				}
				return val
			})
			if len(missing) > 0 {
				return nil, badinput.Errorf("servers file %s: %s: env %s takes ${%s}, which is not set", path, s.Name, k, missing[0])
			}
		}
	}
	return f.Servers, nil
}

// env is the environment of a server's runs: this one's, with the server's
// settings over it.
func (s serverSpec) env(extra ...string) []string {
	env := os.Environ()
	for k, v := range s.Env {
		env = append(env, k+"="+v)
	}
	return append(env, extra...)
}

type compareConfig struct {
	scenario, serversPath, results, id string
	servers                            []serverSpec
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
	if cc.servers, err = loadServers(*servers); err != nil {
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

// cmdCompareServers runs one workload on each server in turn, a fixed load
// and a limit search, and puts them side by side in one report.
func cmdCompareServers(args []string) (int, error) {
	cc, err := parseCompareServers(args)
	if err != nil {
		return 0, err
	}
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	// Every server is checked before any is loaded: a typo in the last
	// one's settings is said before the first run, not after an hour.
	for _, s := range cc.servers {
		out, code := runSelf(self, s.env(), append([]string{"run", "-check-only", "-target", s.Target}, protoArg(s)...), cc.runArgs...)
		if code != 0 {
			return 0, badinput.Errorf("server %s: %s", s.Name, lastLineOf(out))
		}
	}
	dir := filepath.Join(cc.results, cc.id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	fmt.Printf("imbench: comparison %s: %s on %d servers (%s), each alone in turn: %s, then a limit search within %s\n",
		cc.id, cc.scenario, len(cc.servers), names(cc.servers), cc.load, cc.objective)
	var in []report.ServerInput
	for i, s := range cc.servers {
		si := report.ServerInput{Name: s.Name, Target: s.Target, Protocol: s.Protocol, Notes: s.Notes, Before: s.Before, Version: s.Version}
		if s.Before != "" {
			fmt.Printf("imbench: %s (%d of %d): before its turn, %s\n", s.Name, i+1, len(cc.servers), s.Before)
			if err := runHook(context.Background(), s.Before, filepath.Join(dir, s.Name+"-before.log"), s.env(), "IMBENCH_SERVER="+s.Name); err != nil {
				return 1, fmt.Errorf("server %s: the before command %w: the comparison stops here", s.Name, err)
			}
		}
		runID := fmt.Sprintf("%s_%dr", cc.id, i+1)
		fmt.Printf("imbench: %s (%d of %d): the fixed load, run %s\n", s.Name, i+1, len(cc.servers), runID)
		args := append(append([]string{"run", "-target", s.Target, "-run-id", runID}, protoArg(s)...), cc.runArgs...)
		si.RunExit = passSelf(self, s.env("IMBENCH_TARGET_USAGE=1"), args)
		si.RunDir = filepath.Join(cc.results, runID)
		if _, err := os.Stat(filepath.Join(si.RunDir, "summary.json")); err != nil {
			return 1, fmt.Errorf("server %s: the fixed-load run ended (exit %d) with no summary: the comparison stops here", s.Name, si.RunExit)
		}
		_, line := verdict(si.RunDir, si.RunExit)
		si.Verdict = strings.TrimPrefix(line, "imbench: verdict: "+runID+" ")
		si.Usage, si.UsageSeconds = readTargetUsage(si.RunDir)
		if !cc.noLimit {
			limitID := fmt.Sprintf("%s_%dl", cc.id, i+1)
			fmt.Printf("imbench: %s (%d of %d): the limit search %s\n", s.Name, i+1, len(cc.servers), limitID)
			args := append(append([]string{"limit", "-target", s.Target, "-run-id", limitID}, protoArg(s)...), cc.limitArgs...)
			if s.BeforeStep != "" {
				args = append(args, "-before-step", s.BeforeStep)
			}
			si.LimitExit = passSelf(self, s.env(), args)
			if _, err := limit.Load(filepath.Join(cc.results, limitID)); err == nil {
				si.LimitDir = filepath.Join(cc.results, limitID)
			} else {
				fmt.Fprintf(os.Stderr, "imbench: %s: the limit search ended (exit %d) with no limit.json: its column says not searched\n", s.Name, si.LimitExit)
			}
		}
		in = append(in, si)
	}
	c, err := report.CompareServers(cc.id, cc.scenario, cc.load, cc.objective, in)
	if err != nil {
		return 1, err
	}
	if err := report.ComparisonFiles(dir, c); err != nil {
		return 1, err
	}
	fmt.Print("\n" + report.ComparisonMarkdown(c) + "\n")
	fmt.Printf("imbench: comparison %s in %s (comparison.json, comparison.md, comparison.html)\n", cc.id, dir)
	for _, s := range in {
		if s.RunExit != 0 {
			return s.RunExit, nil // a server's run failed (99: its thresholds): the comparison says which
		}
	}
	return 0, nil
}

func protoArg(s serverSpec) []string {
	if s.Protocol == "" {
		return nil
	}
	return []string{"-protocol", s.Protocol}
}

func names(ss []serverSpec) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return strings.Join(out, ", ")
}

// runSelf runs imbench with args, its output captured.
func runSelf(self string, env []string, args []string, more ...string) (string, int) {
	cmd := exec.Command(self, append(slices.Clone(args), more...)...)
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

// readTargetUsage is what a run measured of its target (target_usage.json).
func readTargetUsage(dir string) ([]limit.Usage, float64) {
	raw, err := os.ReadFile(filepath.Join(dir, TargetUsageFile))
	var u TargetUsage
	if err != nil || json.Unmarshal(raw, &u) != nil {
		return nil, 0
	}
	return u.Usage, u.To.Sub(u.From).Seconds()
}
