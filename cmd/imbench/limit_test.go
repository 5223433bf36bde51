package main

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/testmachine"
	"github.com/imbench/imbench/load/limit"
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

// A generator on one core receiving a 100-member group's 4 KB messages
// gzipped (what costs the client far more than the server, which gzips each
// message once) is the limit: the search says so, not that the server
// gave out.
func TestLimitNamesTheGenerator(t *testing.T) {
	testmachine.Alone(t)
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

// -before-step runs its command before every step, told which step and
// load come next, and limit.md names it; a command that fails stops the
// search before its step's load, and reports no search.
func TestLimitRunsACommandBeforeEachStep(t *testing.T) {
	testmachine.Shared(t)
	tg := startTarget(t)
	results, calls := t.TempDir(), filepath.Join(t.TempDir(), "calls")
	hook := `echo "$IMBENCH_STEP $IMBENCH_LOAD" >> ` + calls
	args := []string{"limit", "-scenario", mustAbs(t, "testdata/limit-pairs.js"), "-protocol", "wukongim", "-start", "100",
		"-step", "5s", "-max-steps", "3", "-confirm=false", "-slo", "lost==0", "-q", "-results", results}
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
