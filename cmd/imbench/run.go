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
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/runid"
	"github.com/imbench/imbench/load/engine"
	_ "github.com/imbench/imbench/load/openim" // registers the protocols
	_ "github.com/imbench/imbench/load/wildfire"
	_ "github.com/imbench/imbench/load/wukongim"
)

// runConfig is one `imbench run`, validated.
type runConfig struct {
	scenario, script string
	target           profile.Profile
	protocol         string
	endpoints        profile.Endpoints // by name, each overridable by IM_<NAME>_URL
	secret           string
	admin            string
	allowRemote      bool
	runID            string
	env              []string // IM_* for the scenario
	k6               string
	k6Args           []string
	resultsDir       string
	segments         int // k6 processes, one per execution segment
}

func cmdRun(args []string) (int, error) {
	rc, err := parseRun(args)
	if err != nil {
		return 0, err
	}
	if err := preflight(rc); err != nil {
		return 0, err
	}
	return execute(rc)
}

// execute runs a checked scenario: one k6 process, or one per segment.
func execute(rc *runConfig) (int, error) {
	if rc.segments > 1 {
		return runSegments(rc)
	}
	return runK6(rc)
}

// k6Run is the start of every k6 command line of a run. --address= : no
// REST API, so concurrent k6 processes (segments) never fight over its port.
func k6Run(extra ...string) []string {
	return append([]string{"run", "--quiet", "--no-color", "--address="}, extra...)
}

// runTags are the tags every sample of the run carries.
func (rc *runConfig) runTags() []string {
	return []string{"--tag", "run_id=" + rc.runID, "--tag", "target=" + rc.target.Name}
}

func parseRun(args []string) (*runConfig, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var (
		scenario = fs.String("scenario", "", "scenario, <system>/<test> under load/scenarios (required)")
		target   = fs.String("target", "reference", "target profile under targets/")
		scale    = fs.String("scale", "", "scales users and messages; 1 is the seed's size")
		rate     = fs.String("rate", "", "messages per second, overriding the scenario's pacing")
		duration = fs.String("duration", "", "send for this long instead of the scenario's message counts (workload scenarios)")
		vus      = fs.String("vus", "", "k6 VUs sharing the users")
		segments = fs.Int("segments", 1, "k6 processes, each running one execution segment of the users")
		runID    = fs.String("run-id", "", "run id (default: generated)")
		results  = fs.String("results", "results", "results folder")
		k6bin    = fs.String("k6", filepath.Join(toolsBin, "k6"), "imbench's k6 binary")
		protocol = fs.String("protocol", "", "the protocol to speak, where the target speaks several (default: the target's system)")
		quiet    = fs.Bool("q", false, "no progress lines while the run goes (IM_PROGRESS=off)")
	)
	if err := fs.Parse(args); err != nil {
		return nil, usageError{err}
	}
	if _, err := liveAddr(); err != nil {
		return nil, err
	}
	rc := &runConfig{scenario: *scenario, k6: *k6bin, k6Args: fs.Args(), resultsDir: *results, segments: *segments}
	if rc.segments < 1 || rc.segments > 64 {
		return nil, badInput("SEGMENTS must be within 1..64, got %d", rc.segments)
	}
	known, err := scenarios()
	if err != nil {
		return nil, err
	}
	if rc.scenario == "" {
		return nil, badInput("SCENARIO is required (known: %s)", strings.Join(known, ", "))
	}
	rc.script = filepath.Join(scenarioDir, rc.scenario+".js")
	if !slices.Contains(known, rc.scenario) {
		if near, ok := nearest(rc.scenario, known); ok {
			return nil, badInput("unknown scenario %q: did you mean %s? (make scenarios lists them)", rc.scenario, near)
		}
		return nil, badInput("unknown scenario %q (known: %s)", rc.scenario, strings.Join(known, ", "))
	}
	profiles, err := profile.Load("targets")
	if err != nil {
		return nil, err
	}
	p, ok := profiles[*target]
	if !ok {
		return nil, badInput("unknown target %q (known: %s)", *target, strings.Join(profile.Names(profiles), ", "))
	}
	// A scenario is named after the seed it reproduces; it runs over the
	// protocols it names where it needs them (a chatroom), else that
	// system's protocol where its target speaks it, else the target's own;
	// or any protocol the target speaks (WuKongIM's receive test over
	// OpenIM is a comparison of its own).
	info, err := readScenario(rc.scenario)
	if err != nil {
		return nil, err
	}
	if rc.protocol, err = info.defaultProtocol(p.System, p.Speaks()); err != nil && *protocol == "" {
		return nil, badInput("%v", err)
	}
	if *protocol != "" {
		rc.protocol = *protocol
	}
	spec, err := engine.Lookup(rc.protocol)
	if err != nil {
		return nil, badInput("%v", err)
	}
	if !slices.Contains(p.Speaks(), rc.protocol) {
		return nil, badInput("target %s speaks %s, not %s", p.Name, strings.Join(p.Speaks(), ", "), rc.protocol)
	}
	rc.target = p
	env := map[string]string{}
	for name, raw := range map[string]string{"SCALE": *scale, "RATE": *rate, "VUS": *vus} {
		if raw == "" {
			continue
		}
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil || v <= 0 || v > 1e6 {
			return nil, badInput("%s must be a positive number, got %q", name, raw)
		}
		if name == "VUS" && v != float64(int(v)) {
			return nil, badInput("VUS must be a whole number, got %q", raw)
		}
		env["IM_"+name] = raw
	}
	if *duration != "" {
		if d, err := time.ParseDuration(*duration); err != nil || d <= 0 || d > 30*24*time.Hour {
			return nil, badInput("DURATION must be a duration such as 10m or 24h, got %q", *duration)
		}
		env["IM_DURATION"] = *duration
	}
	rc.runID = *runID
	if rc.runID == "" {
		rc.runID = runid.New()
	} else if strings.ContainsAny(rc.runID, ":|/ \t\"\\") {
		return nil, badInput("run id %q must not contain ':', '|', '/', quotes or spaces", rc.runID)
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
		if rc.secret, err = targetSecret(false); err != nil {
			return nil, err
		}
	}
	if rc.secret == "" {
		return nil, badInput("target %s needs its admin secret in IM_SECRET", p.Name)
	}
	env["IM_TARGET"], env["IM_PROTOCOL"] = p.Name, rc.protocol
	if cores := serverCores(p); cores > 0 {
		env["IM_SERVER_CORES"] = strconv.Itoa(cores)
	}
	env["IM_SECRET"], env["IM_ADMIN_USER"], env["IM_RUN_ID"] = rc.secret, rc.admin, rc.runID
	env["IM_RESULTS_DIR"] = rc.resultsDir
	env["IM_IMBENCH_VERSION"] = imbenchVersion()
	if p.Name == "reference" && os.Getenv("IM_STORM_URL") == "" {
		env["IM_STORM_URL"] = "http://" + stackAddrs().metrics + "/fault/storm" // beside its /metrics
	}
	if *quiet {
		env["IM_PROGRESS"] = "off"
	}
	for k, v := range env {
		rc.env = append(rc.env, k+"="+v)
	}
	sort.Strings(rc.env)
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
	if _, err := os.Stat(rc.k6); err != nil {
		return fmt.Errorf("%s is not built: run make up", rc.k6)
	}
	opts := map[string]any{"secret": rc.secret}
	if spec, err := engine.Lookup(rc.protocol); err == nil && spec.AdminUser {
		opts["admin"] = rc.admin
	}
	t := engine.Target{Name: rc.target.Name, System: rc.protocol, AllowRemote: rc.allowRemote,
		Endpoints: rc.endpoints, Options: opts}
	_, proto, err := t.Open()
	if err != nil {
		return badInput("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := proto.Preflight(ctx); err != nil {
		hint := ""
		if rc.target.Name == "reference" {
			hint = " (start it with make up)"
		}
		return fmt.Errorf("target %s: %v%s", rc.target.Name, err, hint)
	}
	return nil
}

func runK6(rc *runConfig) (int, error) {
	dir := filepath.Join(rc.resultsDir, rc.runID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	args := k6Run(rc.runTags()...)
	env := append(os.Environ(), rc.env...)
	var obs observation
	var cmd *exec.Cmd
	live := startLive
	if dockerAnswers() {
		live = grafanaLive // compose: Grafana is the live view
		// compose: k6 runs in the runner container, on the stack's network.
		obs = observeCompose(rc)
		args = append(append(args, rc.k6Args...), rc.script)
		// As the invoking user, so results/ stays writable and owned by them.
		run := []string{"compose", "-f", composeFile, "--profile", "runner", "run", "--rm",
			"--user", fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())}
		for _, kv := range rc.env {
			if name, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(name, "IM_") || !strings.HasSuffix(name, "_URL") {
				run = append(run, "-e", strings.SplitN(kv, "=", 2)[0]) // value passed through the environment
			}
		}
		cmd = exec.Command("docker", append(append(run, "k6"), args...)...)
	} else {
		obs = observe(rc)


		args = append(append(args, rc.k6Args...), rc.script)
		cmd = exec.Command(rc.k6, args...)
	}
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	fmt.Printf("imbench: run %s: %s on %s (%s)\n", rc.runID, rc.scenario, rc.target.Name, rc.where())
	for _, n := range obs.notes {
		fmt.Println("imbench:", n)
	}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	// k6 stops gracefully on SIGINT; pass ours on and wait for it.
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	go func() {
		for s := range sig {
			cmd.Process.Signal(s)
		}
	}()
	stopLive := live(rc, started)
	err := cmd.Wait()
	stopLive()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return 0, err
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err == nil {
		return finishRun(rc, obs, dir, code)
	}
	if obs.logs != "" {
		printLogProblems(obs.logs, rc.runID)
	}
	if entries, _ := os.ReadDir(dir); len(entries) == 0 {
		os.Remove(dir)
	}
	return code, nil
}

// finishRun ends a run that left its summary: the log's problems, the
// results/latest link, the report. A failed report makes a zero code 1.
func finishRun(rc *runConfig, obs observation, dir string, code int) (int, error) {
	if obs.logs != "" {
		printLogProblems(obs.logs, rc.runID)
	}
	latest := filepath.Join(rc.resultsDir, "latest")
	os.Remove(latest)
	if err := os.Symlink(rc.runID, latest); err != nil {
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
	return code, nil
}

// imbenchVersion is `git describe` of the checkout, or "unknown".
func imbenchVersion() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty", "--tags").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// rootCause drops the wrappers of a network error down to what failed.
func rootCause(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return op
	}
	return err
}

// serverCores is the target machine's cores: IM_SERVER_CORES, the
// profile's, or this machine's for the reference target, which runs here.
func serverCores(p profile.Profile) int {
	if v, err := strconv.Atoi(os.Getenv("IM_SERVER_CORES")); err == nil && v > 0 {
		return v
	}
	if p.Cores > 0 {
		return p.Cores
	}
	if p.Name == "reference" {
		return runtime.NumCPU()
	}
	return 0
}
