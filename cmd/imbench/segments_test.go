package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/testmachine"
	"github.com/imbench/imbench/load/runner"
)

// The same scenario as one process and as three segment processes: the segments hold every user exactly once (the merge checks
// their user ranges; the target saw each user log in once), and the figures
// that count add up to the single process's.
func TestSegmentsAddUpToOneProcess(t *testing.T) {
	testmachine.Shared(t)
	tg := startTarget(t)
	single := runScenario(t, tg, "0.25", "100")
	loginsBefore := tg.counter(t, `imbench_target_ws_logins_total{result="ok"}`)

	results := t.TempDir()
	env := append(tg.env(), "IM_LOGIN_WINDOW=4s", "IM_SEND_MARGIN=4s")
	r := imbench(t, env, "run", "-scenario", "openim/test1", "-scale", "0.25", "-rate", "100", "-segments", "3", "-results", results)
	if r.code != 0 {
		t.Fatalf("segments: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// Merged, the split run removes what it made, as one process does.
	if _, err := os.Stat(filepath.Join(results, "latest", runner.TeardownFile)); err != nil || !strings.Contains(r.stdout, "imbench: removed from") {
		t.Fatalf("the split run did not clean up (%v):\n%s\n%s", err, r.stdout, r.stderr)
	}
	raw, err := os.ReadFile(filepath.Join(results, "latest", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var merged struct {
		runSummary
		Parts     []string `json:"parts"`
		Generator struct {
			UserRanges [][2]int `json:"user_ranges"`
		} `json:"generator"`
	}
	if err := json.Unmarshal(raw, &merged); err != nil {
		t.Fatal(err)
	}
	if len(merged.Parts) != 3 || len(merged.Generator.UserRanges) != 3 {
		t.Fatalf("parts %v ranges %v", merged.Parts, merged.Generator.UserRanges)
	}
	held := map[int]int{}
	for _, rg := range merged.Generator.UserRanges {
		for u := rg[0]; u < rg[1]; u++ {
			held[u]++
		}
	}
	for u := 0; u < single.Users.Registered; u++ {
		if held[u] != 1 {
			t.Fatalf("user %d held by %d segments (ranges %v)", u, held[u], merged.Generator.UserRanges)
		}
	}
	if logins := tg.counter(t, `imbench_target_ws_logins_total{result="ok"}`) - loginsBefore; logins != int64(single.Users.Registered) {
		t.Fatalf("the target saw %d logins for %d users", logins, single.Users.Registered)
	}
	s, m := single.Deliveries, merged.Deliveries
	if s.Expected == 0 || s.Expected != m.Expected || s.Received != m.Received || s.Lost != m.Lost ||
		single.Messages.Sent != merged.Messages.Sent {
		t.Fatalf("one process: expected %d received %d lost %d sent %d; three: expected %d received %d lost %d sent %d",
			s.Expected, s.Received, s.Lost, single.Messages.Sent, m.Expected, m.Received, m.Lost, merged.Messages.Sent)
	}
	if merged.Latency.E2E.Count != m.Pushed || merged.Latency.E2E.P99 <= 0 {
		t.Fatalf("merged latency %+v for %d pushed deliveries", merged.Latency.E2E, m.Pushed)
	}

	// Runners started elsewhere (a Kubernetes Indexed Job's pods) leave only
	// the partial summaries: imbench merge and the report merge them, and
	// refuse a missing part.
	dir, _ := filepath.EvalSymlinks(filepath.Join(results, "latest"))
	os.Remove(filepath.Join(dir, "summary.json"))
	if r := imbench(t, nil, "report", "-run", filepath.Base(dir), "-results", results); r.code != 0 {
		t.Fatalf("report from partials: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	again, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil || !bytes.Equal(again, raw) {
		t.Fatalf("the report's merge differs from the run's (%v)", err)
	}
	// A missing part (its process was killed): the others' results are kept,
	// the missing segment named, and the exit is not 0.
	os.Remove(filepath.Join(dir, "summary.json"))
	os.Remove(filepath.Join(dir, "summary-1_3-2_3.json"))
	r = imbench(t, nil, "report", "-run", filepath.Base(dir), "-results", results)
	if r.code == 0 || !strings.Contains(r.stderr, "segment(s) 1/3:2/3 wrote no summary") {
		t.Fatalf("a missing part: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var partial struct {
		runSummary
		Missing []string `json:"missing_parts"`
	}
	raw, err = os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil || json.Unmarshal(raw, &partial) != nil || len(partial.Missing) != 1 || partial.Messages.Sent == 0 ||
		partial.Messages.Sent >= merged.Messages.Sent {
		t.Fatalf("partial summary (%v): missing %v, sent %d of %d", err, partial.Missing, partial.Messages.Sent, merged.Messages.Sent)
	}
	if md, _ := os.ReadFile(filepath.Join(dir, "report.md")); !strings.Contains(string(md), "1/3:2/3 of 3 wrote no summary") {
		t.Fatalf("the report does not name the missing segment:\n%s", md)
	}
}
