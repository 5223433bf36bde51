package main

import (
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/imbench/imbench/internal/cpulimit/cgtest"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/limit"
	"github.com/imbench/imbench/load/runner"
)

type limitResult struct {
	Limit     float64 `json:"limit"`
	Knee      float64 `json:"knee"`
	Saturated struct {
		Component string `json:"component"`
		Generator bool   `json:"generator"`
		Why       string `json:"why"`
	} `json:"saturated"`
	GeneratorLimited bool `json:"generator_limited"`
	Steps            []struct {
		Asked float64 `json:"asked"`
		Held  bool    `json:"held"`
	} `json:"steps"`
}

func readLimit(t *testing.T, results, out string) limitResult {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(results, "*", "limit.json"))
	if len(dirs) != 1 {
		t.Fatalf("limit.json files %v\n%s", dirs, out)
	}
	raw, err := os.ReadFile(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	var r limitResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"limit.md", "limit.html"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(dirs[0]), f)); err != nil {
			t.Fatalf("no %s: %v", f, err)
		}
	}
	return r
}

// A reference target that serves a capacity drawn at random in 100–800
// messages a second on one core (nobody told the search): the search over
// each protocol finds it within ±10 % and names the target's process as
// what gave out.
func TestLimitFindsTheTargetsCapacity(t *testing.T) {
	for _, proto := range []string{"openim", "wukongim", "wildfire"} {
		t.Run(proto, func(t *testing.T) {
			capacity := float64(100 + rand.IntN(701))
			t.Logf("capacity %g msg/s", capacity)
			tg := startTarget(t, "-fault-capacity", strconv.FormatFloat(capacity, 'f', -1, 64))
			results := t.TempDir()
			r := imbench(t, append(tg.env(), "IMBENCH_NO_OBSERVE=1"), "limit", "-scenario", mustAbs(t, "testdata/limit-pairs.js"),
				"-protocol", proto, "-start", "100", "-resolution", "0.1", "-step", "8s", "-slo", "e2e_p99<100,lost==0", "-q", "-results", results)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			res := readLimit(t, results, r.stdout)
			if res.Limit < 0.9*capacity || res.Limit > 1.1*capacity || res.Knee <= res.Limit {
				t.Fatalf("limit %g, knee %g for a capacity of %g\n%s", res.Limit, res.Knee, capacity, r.stdout)
			}
			if res.Saturated.Component != "imbench-target" || res.Saturated.Generator || res.GeneratorLimited {
				t.Fatalf("saturated %+v\n%s", res.Saturated, r.stdout)
			}
			if !strings.Contains(r.stdout, "imbench: limit ") || !strings.Contains(r.stdout, "gave out first: imbench-target") {
				t.Fatalf("no result line:\n%s", r.stdout)
			}
		})
	}
}

// A generator on one core receiving a 100-member group's 4 KB messages
// gzipped (what costs the client far more than the server, which gzips each
// message once) is the limit: the search says so, not that the server
// gave out.
func TestLimitNamesTheGenerator(t *testing.T) {
	tg := startTarget(t)
	results := t.TempDir()
	env := append(tg.env(), "IMBENCH_NO_OBSERVE=1", "GOMAXPROCS=1", "LIMIT_KIND=groups", "IM_BODY_SIZE=4096")
	r := imbench(t, env, "limit", "-scenario", mustAbs(t, "testdata/limit-pairs.js"), "-protocol", "openim",
		"-start", "100", "-step", "8s", "-slo", "e2e_p99<100,lost==0", "-max", "6400", "-q", "-results", results)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	res := readLimit(t, results, r.stdout)
	if !res.GeneratorLimited || !res.Saturated.Generator || res.Saturated.Component != "imbench" {
		t.Fatalf("result %+v\n%s", res, r.stdout)
	}
	if !strings.Contains(r.stdout, "the generator was the limit, not the server") {
		t.Fatalf("result line:\n%s", r.stdout)
	}
}

// make compare takes two searches: B's limit lower than A's by more than
// the threshold exits 3.
func TestCompareTwoSearches(t *testing.T) {
	results := t.TempDir()
	for id, lim := range map[string]float64{"sa": 1000, "sb": 850, "sc": 990} {
		r := limit.Result{SearchID: id, Scenario: "wukongim/send-limit", Target: "reference", Objective: "e2e_p99<1000",
			Params: limit.Params{Dimension: "rate", Start: 100, Factor: 2, Resolution: 0.05}, Limit: lim, LimitStep: 1, Knee: lim * 1.05,
			Steps: []limit.Step{{N: 1, Asked: lim, Held: true, Deliveries: lim * 10, E2EP99: 40}}}
		if err := limit.Write(filepath.Join(results, id), r); err != nil {
			t.Fatal(err)
		}
	}
	worse := imbench(t, nil, "compare", "-a", "sa", "-b", "sb", "-results", results)
	if worse.code != 3 || !strings.Contains(worse.stdout, "| Limit | 1,000 msg/s | 850 msg/s | -15.0 % |") {
		t.Fatalf("exit %d\n%s\n%s", worse.code, worse.stdout, worse.stderr)
	}
	if same := imbench(t, nil, "compare", "-a", "sa", "-b", "sc", "-results", results); same.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", same.code, same.stdout, same.stderr)
	}
}

// A step whose clean-up left users or groups on the target says so in its
// line, with its run id and the make clean-target that removes them.
func TestAStepSaysWhatItsCleanUpLeft(t *testing.T) {
	dir := t.TempDir()
	if got := leftBy(dir); got != "" {
		t.Fatalf("no teardown.json: %q", got)
	}
	rec := runner.TeardownRecord{Target: "wildfire", Removed: engine.Removal{Users: 80, UsersLeft: 45, GroupsLeft: 1}}
	raw, _ := json.Marshal(rec)
	if err := os.WriteFile(filepath.Join(dir, runner.TeardownFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	st := limit.Step{N: 3, Asked: 400, RunID: "lim_s3", Left: leftBy(dir)}
	if line := limit.StepLine(st, "rate"); !strings.HasSuffix(line, "; its clean-up left 45 users, 1 group on the target: make clean-target RUN=lim_s3 removes them") {
		t.Fatalf("%q", line)
	}
}

// A generator in a cgroup with a CPU quota of 0.05 of a core (as a
// Kubernetes CPU limit makes it) is named as the limit, its quota and
// throttling said, not the machine nor the server.
func TestLimitNamesAGeneratorHeldByItsCPUQuota(t *testing.T) {
	dir := cgtest.QuotaCgroup(t, 0.05)
	tg := startTarget(t)
	results := t.TempDir()
	script := "echo $$ > " + filepath.Join(dir, "cgroup.procs") + ` && exec "$0" "$@"`
	cmd := exec.Command("sh", "-c", script, filepath.Join(toolsDir(t), "imbench"), "limit", "-scenario", mustAbs(t, "testdata/limit-pairs.js"),
		"-protocol", "openim", "-start", "100", "-step", "8s", "-slo", "e2e_p99<100,lost==0", "-max", "800", "-q", "-results", results)
	cmd.Dir = "../.."
	cmd.Env = append(append(os.Environ(), tg.env()...), "IMBENCH_NO_OBSERVE=1")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 0) {
		t.Fatalf("%v\n%s", err, out)
	}
	res := readLimit(t, results, string(out))
	if !res.GeneratorLimited || !res.Saturated.Generator || res.Saturated.Component != "imbench" ||
		!strings.Contains(res.Saturated.Why, "held back by its CPU quota") || !strings.Contains(res.Saturated.Why, "0.05 of a core") {
		t.Fatalf("result %+v\n%s", res, out)
	}
	if !strings.Contains(string(out), "imbench: the generator may use 0.05 cores: the CPU quota of its cgroup /imbench-test-") {
		t.Fatalf("the quota is not said:\n%s", out)
	}
}

// readResult is a search's whole limit.json.
func readResult(t *testing.T, results, out string) limit.Result {
	t.Helper()
	readLimit(t, results, out)
	dirs, _ := filepath.Glob(filepath.Join(results, "*", "limit.json"))
	r, err := limit.Load(filepath.Dir(dirs[0]))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// With a second reference target beside it, busy with work of its own, the
// search measures its own target alone: its limit, its CPU column (the
// listening owner's PID, the neighbour counted as the machine) and its
// settle waits are its own target's.
func TestLimitMeasuresItsOwnTargetAlone(t *testing.T) {
	nb, nbArgs := targetArgs(t, "-fault-busy", "0.3")
	neighbour := launchTarget(t, nb, nbArgs)
	tg, args := targetArgs(t, "-fault-capacity", "300")
	own := launchTarget(t, tg, args)
	results := t.TempDir()
	r := imbench(t, append(tg.env(), "IMBENCH_NO_OBSERVE=1"), "limit", "-scenario", mustAbs(t, "testdata/limit-pairs.js"),
		"-protocol", "wukongim", "-start", "100", "-resolution", "0.1", "-step", "8s", "-slo", "e2e_p99<100,lost==0", "-q", "-results", results)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	res := readResult(t, results, r.stdout)
	if res.Limit < 270 || res.Limit > 330 || res.Saturated.Component != "imbench-target" {
		t.Fatalf("limit %g, saturated %+v\n%s", res.Limit, res.Saturated, r.stdout)
	}
	want := fmt.Sprintf("the target measured: imbench-target (PID %d)", own.Process.Pid)
	if !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "other process") {
		t.Fatalf("no %q:\n%s", want, r.stdout)
	}
	for _, st := range res.Steps {
		var u *limit.Usage
		for i := range st.Usage {
			if st.Usage[i].Component == "imbench-target" {
				u = &st.Usage[i]
			}
		}
		if u == nil || len(u.PIDs) != 1 || u.PIDs[0] != own.Process.Pid || u.Processes != 1 || u.Others < 1 {
			t.Fatalf("step %d measured %+v (own PID %d, the neighbour's %d)", st.N, u, own.Process.Pid, neighbour.Process.Pid)
		}
		// The target spends 1/300 s of a core on a message; the neighbour
		// spins 30 % of a core: counted in, the CPU column of a step below
		// the capacity would show it.
		if st.Asked <= 270 && u.CPUAvg > 100*st.Asked/300+20 {
			t.Fatalf("step %d at %g msg/s: the target's CPU %.0f %% (the neighbour's counted in?)", st.N, st.Asked, u.CPUAvg)
		}
		if st.Settled > 20 {
			t.Fatalf("step %d waited %.0f s for the server to settle: the neighbour's CPU was waited on", st.N, st.Settled)
		}
	}
	if !strings.Contains(limit.MeasuredText(res), fmt.Sprintf("imbench-target: PID %d", own.Process.Pid)) {
		t.Fatalf("measured: %s", limit.MeasuredText(res))
	}
}

// A users search against a reference target whose open files are capped
// below the users asked (started under ulimit -n) names the server's
// open-files limit; with the generator's capped instead, the generator's.
func TestLimitNamesTheOpenFilesLimit(t *testing.T) {
	search := func(t *testing.T, tg target, wrap string) (limit.Result, string) {
		results := t.TempDir()
		args := []string{"limit", "-scenario", "openim/online-limit", "-start", "150", "-max", "1600", "-resolution", "0.3", "-step", "5s", "-q", "-results", results}
		cmd := exec.Command("sh", append([]string{"-c", wrap + `exec "$0" "$@"`, filepath.Join(toolsDir(t), "imbench")}, args...)...)
		cmd.Dir = "../.."
		cmd.Env = append(append(os.Environ(), tg.env()...), "IMBENCH_NO_OBSERVE=1", "IM_LOGIN_RETRIES=1")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 0) {
			t.Fatalf("%v\n%s", err, out)
		}
		return readResult(t, results, string(out)), string(out)
	}
	t.Run("server", func(t *testing.T) {
		tg, args := targetArgs(t)
		launchTargetUnder(t, tg, args, "ulimit -n 300; ")
		res, out := search(t, tg, "")
		if res.Saturated.Rule != limit.RuleServerOpenFiles || res.Saturated.Component != "imbench-target" || res.Saturated.Generator ||
			!strings.Contains(res.Saturated.Why, " of 300 ") || res.Limit < 100 || res.Limit >= 300 {
			t.Fatalf("limit %g, saturated %+v\n%s", res.Limit, res.Saturated, out)
		}
	})
	t.Run("generator", func(t *testing.T) {
		tg := startTarget(t)
		res, out := search(t, tg, "ulimit -n 300; ")
		if res.Saturated.Rule != limit.RuleGeneratorOpenFiles || res.Saturated.Component != "imbench" || !res.Saturated.Generator ||
			!strings.Contains(res.Saturated.Why, "ulimit -n 300") || res.Limit >= 300 {
			t.Fatalf("limit %g, saturated %+v\n%s", res.Limit, res.Saturated, out)
		}
	})
}

// Beside a CPU hog that takes a whole core of the machine, the search
// either finds the capacity within ±10 % or says it is undetermined on
// this machine: never a limit below the capacity blamed on the server.
func TestLimitBesideACPUHog(t *testing.T) {
	// A shell spinning, in a process group of its own that the clean-up
	// kills whole (timeout bounds it should the test itself be killed).
	hog := exec.Command("timeout", "600", "sh", "-c", "while :; do :; done")
	hog.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-hog.Process.Pid, syscall.SIGKILL); hog.Wait() })
	const capacity = 300.0
	tg := startTarget(t, "-fault-capacity", "300")
	results := t.TempDir()
	r := imbench(t, append(tg.env(), "IMBENCH_NO_OBSERVE=1"), "limit", "-scenario", mustAbs(t, "testdata/limit-pairs.js"),
		"-protocol", "wukongim", "-start", "100", "-resolution", "0.1", "-step", "8s", "-slo", "e2e_p99<100,lost==0", "-retries", "1", "-q", "-results", results)
	if r.code != 0 && r.code != runner.ExitThresholds {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	res := readResult(t, results, r.stdout)
	t.Logf("limit %g, undetermined %v, highest held %g; %s", res.Limit, res.Undetermined, res.HighestHeld, limit.ResultLine(res))
	switch {
	case res.Undetermined:
		if res.Limit != 0 || !strings.Contains(r.stdout, "undetermined on this machine") {
			t.Fatalf("undetermined with a limit of %g:\n%s", res.Limit, r.stdout)
		}
	case res.Limit < 0.9*capacity && !res.Saturated.Generator && res.Saturated.Component != "the machine":
		t.Fatalf("a limit of %g below the capacity of %g blamed on %s:\n%s", res.Limit, capacity, res.Saturated.Component, r.stdout)
	case res.Limit > 1.1*capacity:
		t.Fatalf("a limit of %g above the capacity of %g:\n%s", res.Limit, capacity, r.stdout)
	}
	var disturbed int
	for _, st := range res.Steps {
		if st.Disturbed != "" {
			disturbed++
		}
	}
	t.Logf("%d of %d steps disturbed", disturbed, len(res.Steps))
}

// -before-step runs its command before every step, told which step and
// load come next, and limit.md names it; a command that fails stops the
// search before its step's load, and reports no search.
func TestLimitRunsACommandBeforeEachStep(t *testing.T) {
	tg := startTarget(t, "-fault-capacity", "300")
	results, calls := t.TempDir(), filepath.Join(t.TempDir(), "calls")
	hook := `echo "$IMBENCH_STEP $IMBENCH_LOAD" >> ` + calls
	args := []string{"limit", "-scenario", mustAbs(t, "testdata/limit-pairs.js"), "-protocol", "wukongim", "-start", "100",
		"-step", "5s", "-max-steps", "3", "-confirm=false", "-slo", "e2e_p99<100,lost==0", "-q", "-results", results}
	r := imbench(t, append(tg.env(), "IMBENCH_NO_OBSERVE=1"), append(args, "-before-step", hook)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	res := readResult(t, results, r.stdout)
	raw, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, st := range res.Steps {
		fmt.Fprintf(&want, "%d %g\n", st.N, st.Asked)
	}
	if len(res.Steps) != 3 || string(raw) != want.String() {
		t.Fatalf("the command ran as %q; the steps were %q", raw, want.String())
	}
	md, _ := os.ReadFile(filepath.Join(results, res.SearchID, "limit.md"))
	page, _ := os.ReadFile(filepath.Join(results, res.SearchID, "limit.html"))
	if res.BeforeStep != hook || !strings.Contains(string(md), "Before each step: `"+hook+"`") ||
		!strings.Contains(string(page), "Before each step: <code>"+html.EscapeString(hook)+"</code>") {
		t.Fatalf("before_step %q\n%s", res.BeforeStep, md)
	}

	failed := t.TempDir()
	r = imbench(t, append(tg.env(), "IMBENCH_NO_OBSERVE=1"), append(args[:len(args)-1], failed, "-before-step", "echo down >&2; exit 3")...)
	if r.code == 0 || !strings.Contains(r.stderr, "step 1: the before-step command failed (exit status 3)") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if found, _ := filepath.Glob(filepath.Join(failed, "*", "*.json")); len(found) != 0 {
		t.Fatalf("a search that never ran a step left %v", found)
	}
}
