package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/catalog"
	"github.com/imbench/imbench/internal/console"
	"github.com/imbench/imbench/internal/loopback"
	"github.com/imbench/imbench/internal/observe"
	"github.com/imbench/imbench/internal/procgroup"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/runid"
	"github.com/imbench/imbench/internal/stack"
	"github.com/imbench/imbench/load/engine"
	_ "github.com/imbench/imbench/load/openim" // registers the protocols
	"github.com/imbench/imbench/load/runner"
	"github.com/imbench/imbench/load/segment"
	_ "github.com/imbench/imbench/load/wildfire"
	_ "github.com/imbench/imbench/load/wukongim"
	"github.com/imbench/imbench/report/live"
)

// `imbench run`: its flags and every check before any load (the scenario,
// the target, the knobs, the target answering and accepting the secret);
// execute.go runs it.

// runConfig is one `imbench run`, validated.
type runConfig struct {
	scenario, script string
	target           profile.Profile
	protocol         string
	endpoints        profile.Endpoints // by name, each overridable by IM_<NAME>_URL
	checkOnly        bool              // -check-only: stop after the checks, before any load
	secret           string
	admin            string
	allowRemote      bool
	runID            string
	env              []string // IM_* for the scenario
	resultsDir       string
	segments         int             // processes on this machine, one segment each
	segment          segment.Segment // the one segment this process runs (-segment i/n)
	setupOnly        bool            // set the target up and stop
	splitInto        int             // with setupOnly: the segments the run will have
	startAt          time.Time       // a split run's common clock
	noThresholds     bool
	promWrite        string       // -prometheus-rw-url: instead of the native stack's
	logPush          string       // -log-push-url: likewise
	console          *console.Tee // what the run prints, copied to the log store
	kube             *kubeOptions // -on kubernetes: the segments as pods
	printResults     bool         // -print-results: the files a pod's caller reads back, printed
}

func cmdRun(args []string) (int, error) {
	rc, err := parseRun(args)
	if err != nil {
		return 0, err
	}
	if err := checkScenario(rc); err != nil {
		return 0, err
	}
	if !rc.onKube() { // on Kubernetes the setup pod checks the target from where the load goes
		if err := preflight(rc); err != nil {
			return 0, err
		}
	}
	if rc.checkOnly {
		fmt.Printf("imbench: %s on %s (%s): the scenario, its settings and the target answer as they should\n", rc.scenario, rc.target.Name, rc.where())
		return 0, nil
	}
	code, err := execute(rc)
	if err == nil && rc.printResults {
		err = printResults(rc)
	}
	return code, err
}

// checkScenario refuses what the scenario file, its knobs and the
// environment get wrong before the target is contacted (exit 2).
func checkScenario(rc *runConfig) error {
	if err := runner.Check(rc.runnerConfig(observe.Observation{})); err != nil {
		return badinput.Errorf("%v", err)
	}
	return nil
}

func parseRun(args []string) (*runConfig, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var (
		scenario  = fs.String("scenario", "", "scenario: <system>/<test> under load/scenarios, or a .js file of your own (required)")
		target    = fs.String("target", "reference", "target profile under targets/")
		scale     = fs.String("scale", "", "scales users and messages; 1 is the seed's size")
		rate      = fs.String("rate", "", "messages per second, overriding the scenario's pacing")
		duration  = fs.String("duration", "", "send for this long instead of the scenario's message counts (workload scenarios)")
		vus       = fs.String("vus", "", "workers sharing the users in one process")
		segments  = fs.Int("segments", 1, "processes on this machine, each running one segment of the users")
		seg       = fs.String("segment", "", "run only segment i/n of the users (0-based; a Kubernetes Indexed Job passes $(JOB_COMPLETION_INDEX)/<completions>)")
		setup     = fs.Bool("setup-only", false, "set the target up (users, groups) and stop: the first step of a run split over machines")
		startAt   = fs.Int64("start-at", 0, "unix ms every segment of a split run keeps time from")
		noThr     = fs.Bool("no-thresholds", false, "do not fail the run on the scenario's thresholds")
		promRW    = fs.String("prometheus-rw-url", os.Getenv("IM_PROMETHEUS_RW_URL"), "remote-write the metrics here instead of the native stack's Prometheus")
		logPush   = fs.String("log-push-url", os.Getenv("IM_LOG_PUSH_URL"), "push the log here (Loki push protocol) instead of the native stack's log store")
		runID     = fs.String("run-id", "", "run id (default: generated)")
		results   = fs.String("results", "results", "results folder")
		protocol  = fs.String("protocol", "", "the protocol to speak, where the target speaks several (default: the target's system)")
		quiet     = fs.Bool("q", false, "no progress lines while the run goes (IM_PROGRESS=off)")
		checkOnly = fs.Bool("check-only", false, "check the scenario, the settings and the target (its API and gateways), and stop before any user is registered")
		splitInto = fs.Int("split-into", 0, "with -setup-only: the segments the run will be split over")
		printRes  = fs.Bool("print-results", false, "print the setup record or the segment's part summary as log lines (a Kubernetes pod's, read back by -on kubernetes)")
		kubeOpts  = kubeFlags(fs)
	)
	if err := fs.Parse(args); err != nil {
		return nil, badinput.Wrap(err)
	}
	if _, err := live.Addr(); err != nil {
		return nil, badinput.Wrap(err)
	}
	var err error
	if fs.NArg() > 0 {
		return nil, badinput.Errorf("unexpected arguments %q (flags go before them; imbench run -h lists them)", fs.Args())
	}
	rc := &runConfig{scenario: *scenario, resultsDir: *results, segments: *segments, segment: segment.Whole,
		setupOnly: *setup, checkOnly: *checkOnly, noThresholds: *noThr, promWrite: *promRW, logPush: *logPush,
		splitInto: *splitInto, printResults: *printRes, kube: kubeOpts}
	if rc.segments < 1 || rc.segments > 64 {
		return nil, badinput.Errorf("SEGMENTS must be within 1..64, got %d", rc.segments)
	}
	if rc.splitInto < 0 || rc.splitInto > 0 && !rc.setupOnly {
		return nil, badinput.Errorf("-split-into goes with -setup-only: the segments the run it sets up will have")
	}
	if *seg != "" {
		if rc.segment, err = segment.Parse(*seg); err != nil {
			return nil, badinput.Errorf("%v", err)
		}
		if rc.segments > 1 {
			return nil, badinput.Errorf("-segment runs one segment of a split run; -segments splits one: give one of them")
		}
	}
	if rc.segments > 1 && (rc.setupOnly || *startAt != 0) {
		return nil, badinput.Errorf("-segments runs the whole split run (its setup and common start included): -setup-only and -start-at go with -segment i/n")
	}
	if *startAt != 0 && !rc.segment.Split() {
		return nil, badinput.Errorf("-start-at is the common clock of a split run's segments: give -segment i/n too")
	}
	if *startAt != 0 {
		rc.startAt = time.UnixMilli(*startAt)
	}
	if rc.segment.Split() && rc.startAt.IsZero() && !rc.setupOnly {
		return nil, badinput.Errorf("-segment %s needs -start-at: the unix ms every segment keeps time from", rc.segment)
	}
	known, err := catalog.Names()
	if err != nil {
		return nil, err
	}
	if rc.scenario == "" {
		return nil, badinput.Errorf("SCENARIO is required (known: %s)", strings.Join(known, ", "))
	}
	rc.script = catalog.Script(rc.scenario)
	if catalog.IsScriptPath(rc.scenario) {
		if _, err := os.Stat(rc.script); err != nil {
			return nil, badinput.Errorf("scenario file %s: %v", rc.script, errors.Unwrap(err))
		}
	} else if !slices.Contains(known, rc.scenario) {
		if near, ok := catalog.Nearest(rc.scenario, known); ok {
			return nil, badinput.Errorf("unknown scenario %q: did you mean %s? (make scenarios lists them)", rc.scenario, near)
		}
		if len(known) == 0 {
			return nil, badinput.Errorf("unknown scenario %q: no scenarios under load/scenarios here (run imbench from the repository's folder, or give a .js path)", rc.scenario)
		}
		return nil, badinput.Errorf("unknown scenario %q (known: %s)", rc.scenario, strings.Join(known, ", "))
	}
	profiles, err := profile.Load("targets")
	if err != nil {
		return nil, err
	}
	p, ok := profiles[*target]
	if !ok {
		return nil, badinput.Errorf("unknown target %q (known: %s)", *target, strings.Join(profile.Names(profiles), ", "))
	}
	// A scenario is named after the seed it reproduces; it runs over the
	// protocols it names where it needs them (a chatroom), else that
	// system's protocol where its target speaks it, else the target's own;
	// or any protocol the target speaks (WuKongIM's receive test over
	// OpenIM is a comparison of its own).
	info, err := catalog.Read(rc.scenario)
	if err != nil {
		return nil, err
	}
	if rc.protocol, err = info.DefaultProtocol(p.System, p.Speaks()); err != nil && *protocol == "" {
		return nil, badinput.Errorf("%v", err)
	}
	if *protocol != "" {
		if len(info.Protocols) > 0 && !slices.Contains(info.Protocols, *protocol) {
			return nil, badinput.Errorf("%s runs only over %s (its // protocols: header), not %s", info.Name,
				strings.Join(info.Protocols, " or "), *protocol)
		}
		rc.protocol = *protocol
	}
	spec, err := engine.Lookup(rc.protocol)
	if err != nil {
		return nil, badinput.Errorf("%v", err)
	}
	if !slices.Contains(p.Speaks(), rc.protocol) {
		return nil, badinput.Errorf("target %s speaks %s, not %s", p.Name, strings.Join(p.Speaks(), ", "), rc.protocol)
	}
	rc.target = p
	env := map[string]string{}
	for name, raw := range map[string]string{"SCALE": *scale, "RATE": *rate, "VUS": *vus} {
		if raw == "" {
			continue
		}
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil || v <= 0 || v > 1e6 {
			return nil, badinput.Errorf("%s must be a positive number, got %q", name, raw)
		}
		if name == "VUS" && v != float64(int(v)) {
			return nil, badinput.Errorf("VUS must be a whole number, got %q", raw)
		}
		env["IM_"+name] = raw
	}
	if *duration != "" {
		if d, err := time.ParseDuration(*duration); err != nil || d <= 0 || d > 30*24*time.Hour {
			return nil, badinput.Errorf("DURATION must be a duration such as 10m or 24h, got %q", *duration)
		}
		env["IM_DURATION"] = *duration
	}
	rc.runID = *runID
	if rc.runID == "" {
		rc.runID = runid.New()
	} else if err := runid.Check(rc.runID); err != nil {
		return nil, badinput.Errorf("%v", err)
	} else if dir := filepath.Join(rc.resultsDir, rc.runID); !rc.setupOnly && !rc.segment.Split() && !rc.checkOnly && fileExists(dir) {
		// A run id names one run: its results are never overwritten nor
		// mixed with another's (a part of a split run joins its own).
		return nil, badinput.Errorf("run id %s names an earlier run (%s): give a new one, or none", rc.runID, dir)
	}

	rc.endpoints = profile.Endpoints{}
	for name, def := range p.Endpoints {
		if !slices.Contains(spec.Endpoints, name) {
			continue // another protocol's
		}
		rc.endpoints[name] = envOr(profile.EnvName(name), def)
		env[profile.EnvName(name)] = rc.endpoints[name]
	}
	env["IM_ENDPOINTS"] = strings.Join(slices.Sorted(maps.Keys(rc.endpoints)), ",")
	rc.admin = envOr("IM_ADMIN_USER", p.Admin)
	rc.allowRemote = os.Getenv("IM_ALLOW_REMOTE") == "1"
	rc.secret = os.Getenv("IM_SECRET")
	if rc.secret == "" && p.Name == "reference" {
		if rc.secret, err = stack.TargetSecret(false); err != nil {
			return nil, err
		}
	}
	if rc.secret == "" {
		return nil, badinput.Errorf("target %s needs its admin secret in IM_SECRET", p.Name)
	}
	env["IM_TARGET"], env["IM_PROTOCOL"] = p.Name, rc.protocol
	if v := os.Getenv("IM_KEEP"); v != "" {
		env["IM_KEEP"] = v // the compose runner sees only what this passes
	}
	if cores := serverCores(p, rc.endpoints); cores > 0 {
		env["IM_SERVER_CORES"] = strconv.Itoa(cores)
	}
	env["IM_SECRET"], env["IM_ADMIN_USER"], env["IM_RUN_ID"] = rc.secret, rc.admin, rc.runID
	env["IM_RESULTS_DIR"] = rc.resultsDir
	env["IM_IMBENCH_VERSION"] = imbenchVersion()
	if p.Name == "reference" && os.Getenv("IM_STORM_URL") == "" {
		env["IM_STORM_URL"] = "http://" + stack.Addrs().Metrics + "/fault/storm" // beside its /metrics
	}
	if *quiet {
		env["IM_PROGRESS"] = "off"
	}
	for k, v := range env {
		rc.env = append(rc.env, k+"="+v)
	}
	sort.Strings(rc.env)
	if err := rc.kube.check(rc); err != nil {
		return nil, err
	}
	return rc, nil
}

// where names the target's endpoints, for the log.
func (rc *runConfig) where() string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(rc.endpoints)) {
		parts = append(parts, rc.endpoints[name])
	}
	return strings.Join(parts, ", ")
}

// preflight proves the target answers and accepts the secret, before any
// load: the target's protocol driver checks it.
func preflight(rc *runConfig) error {
	// The protocol's options as the run will have them (IM_TRANSPORT, …):
	// the check speaks to the gateways the run will use.
	t, err := runner.TargetFromEnv(rc.runnerConfig(observe.Observation{}).Env, nil)
	if err != nil {
		return badinput.Errorf("%v", err)
	}
	t.Name, t.System, t.AllowRemote, t.Endpoints = rc.target.Name, rc.protocol, rc.allowRemote, rc.endpoints
	_, proto, err := t.Open()
	if err != nil {
		return badinput.Errorf("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err = proto.Preflight(ctx)
	// The gateways' logins are checked once for a split run, by its setup:
	// its segments starting together would log the same manager in at once,
	// and a real WuKongIM drops one of those (a pod refused in 3 runs of 3).
	// A segment checks that it reaches them (Preflight).
	if gc, ok := proto.(engine.GatewayChecker); ok && err == nil && (!rc.segment.Split() || rc.setupOnly) {
		err = gc.CheckGateways(ctx)
	}
	if err != nil {
		hint := ""
		var op *net.OpError
		if rc.target.Name == "reference" && errors.As(err, &op) {
			hint = " (start it with make up)"
		}
		// Refused before any load, as every bad input is: exit 2.
		return badinput.Errorf("target %s: %v%s", rc.target.Name, err, hint)
	}
	return nil
}

// imbenchVersion is `git describe` of the checkout, or "unknown".
func imbenchVersion() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty", "--tags").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// serverCores is the target machine's cores: IM_SERVER_CORES, the
// profile's, or this machine's where the target runs here (the reference
// target; every endpoint on loopback). This machine's are all its CPUs,
// not the few this process may be pinned to.
func serverCores(p profile.Profile, endpoints profile.Endpoints) int {
	if v, err := strconv.Atoi(os.Getenv("IM_SERVER_CORES")); err == nil && v > 0 {
		return v
	}
	if p.Cores > 0 {
		return p.Cores
	}
	local := len(endpoints) > 0
	for _, e := range endpoints {
		local = local && loopback.Require(e) == nil
	}
	if p.Name == "reference" || local {
		return procgroup.MachineCores()
	}
	return 0
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}
