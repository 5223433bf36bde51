package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/runid"
	"github.com/imbench/imbench/internal/stack/console"
	"github.com/imbench/imbench/internal/stack/observe"
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
	checkSettings    bool              // -check-settings: the scenario and settings alone, the target not contacted
	secret           string
	stackHome        string // another checkout whose native stack this run reports into ("": this one's)
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
	if err := runner.CheckResultsDir(rc.resultsDir); err != nil {
		return 0, err
	}
	if rc.checkSettings {
		fmt.Printf("imbench: %s on %s: the scenario and its settings are as they should be (the target not contacted)\n", rc.scenario, rc.target.Name)
		return 0, nil
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
// environment get wrong before the target is contacted (exit 2), and
// says what each class of the plan will send.
func checkScenario(rc *runConfig) error {
	classes, err := runner.Check(rc.runnerConfig(observe.Observation{}))
	if err != nil {
		return badinput.Errorf("%v", err)
	}
	for _, c := range classes {
		fmt.Println("imbench: plan: " + c)
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
		checkSet  = fs.Bool("check-settings", false, "check the scenario and the settings alone, without contacting the target, and stop")
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
		setupOnly: *setup, checkOnly: *checkOnly, checkSettings: *checkSet, noThresholds: *noThr, promWrite: *promRW, logPush: *logPush,
		splitInto: *splitInto, printResults: *printRes, kube: kubeOpts}
	if err := rc.splitFlags(*seg, *startAt); err != nil {
		return nil, err
	}
	res, err := runner.Resolve(rc.scenario, *target, *protocol, "targets")
	if err != nil {
		return nil, err
	}
	p, spec := res.Target, res.Spec
	rc.script, rc.protocol = res.Script, res.Protocol
	rc.target = p
	env, err := knobEnv(*scale, *rate, *vus, *duration)
	if err != nil {
		return nil, err
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

	if err := rc.targetEnv(p, spec, env); err != nil {
		return nil, err
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
// load. A split run's segments leave the gateways' logins to its setup.
func preflight(rc *runConfig) error {
	return runner.Preflight(rc.runnerConfig(observe.Observation{}).Env, rc.target.Name, rc.protocol, rc.allowRemote, rc.endpoints,
		!rc.segment.Split() || rc.setupOnly)
}
