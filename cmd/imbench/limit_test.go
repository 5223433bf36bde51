package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// A reference target that serves 200 messages a second on one core: the
// search over each protocol finds 200 within its resolution and names the
// target's process as what gave out.
func TestLimitFindsTheTargetsCapacity(t *testing.T) {
	const capacity = 200.0
	for _, proto := range []string{"openim", "wukongim", "wildfire"} {
		t.Run(proto, func(t *testing.T) {
			tg := startTarget(t, "-fault-capacity", "200")
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
