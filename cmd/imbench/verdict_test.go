package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/runner"
)

// A run whose server left sends unanswered, or stored messages it had not
// delivered in time, says so in its last line, and a crossed threshold is
// named there, not just counted.
func TestTheVerdictNamesUnansweredSendsAndCrossedThresholds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r_1")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var s summary.Summary
	s.Messages.Sent, s.Messages.Acked, s.Messages.Unanswered = 500, 452, 48
	s.Deliveries.Expected, s.Deliveries.Received, s.Deliveries.OfUnanswered = 45200, 50000, 4800
	s.Deliveries.Late = 7
	raw, _ := json.Marshal(s)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := summary.SaveThresholds(dir, []summary.Threshold{
		{Metric: "lost", Expr: "count==0", Passed: true},
		{Metric: "unanswered", Expr: "count==0", Actual: 48},
	}); err != nil {
		t.Fatal(err)
	}
	level, line := verdict(dir, runner.ExitThresholds)
	for _, want := range []string{"r_1 failed (exit 99, crossed: unanswered count==0)", "45,200 of 45,200 expected deliveries verified",
		"7 late", "48 of 500 sends unanswered: the server did not answer within the timeout"} {
		if level != "ERROR" || !strings.Contains(line, want) {
			t.Errorf("%s %q lacks %q", level, line, want)
		}
	}
	if strings.Contains(line, "lost count") {
		t.Errorf("%q names a threshold that held", line)
	}
	// Exit 0 with sends unanswered (a scenario that relaxed the threshold):
	// the line never says "passed" beside them, and names the relaxation.
	if err := summary.SaveThresholds(dir, []summary.Threshold{
		{Metric: "late", Expr: "count==0", Implicit: true, Actual: 7},
		{Metric: "unanswered", Expr: "count<=50", Passed: true, Actual: 48},
	}); err != nil {
		t.Fatal(err)
	}
	if level, line := verdict(dir, 0); level != "WARN" || strings.Contains(line, "passed") ||
		!strings.Contains(line, "r_1 not failed, the workload allows unanswered count<=50: ") || !strings.Contains(line, "48 of 500 sends unanswered") {
		t.Errorf("%s %q", level, line)
	}
	if err := os.Remove(filepath.Join(dir, summary.ThresholdsFile)); err != nil {
		t.Fatal(err)
	}
	if _, line := verdict(dir, 0); !strings.Contains(line, "r_1 not failed, thresholds off (-no-thresholds): ") {
		t.Errorf("%q", line)
	}
	// Deliveries the overloaded server would not let the store check read
	// back are unchecked: neither lost nor late.
	s.Deliveries.Lost, s.Deliveries.LostNeverStored, s.Deliveries.Unchecked = 0, 0, 13761
	s.Deliveries.StoreCheck = &summary.StoreCheckSummary{Ran: true, Owed: 17600, Readers: 101, Reads: 101, ReadsFailed: 79, Retries: 180, Tries: 3, Unchecked: 13761, Error: "pull of u14: unanswered"}
	raw, _ = json.Marshal(s)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	_, line = verdict(dir, runner.ExitThresholds)
	if !strings.Contains(line, "13,761 unchecked (the server did not answer 79 of 101 reads of the store check, each tried 3 times (the first error: pull of u14: unanswered))") ||
		strings.Contains(line, "lost") {
		t.Errorf("%q", line)
	}
	c := *s.Deliveries.StoreCheck
	c.Readers, c.Reads, c.ReadsFailed = 101, 32, 32
	if why := summary.UncheckedWhy(&c); !strings.HasSuffix(why, "and its time ran out before 69 more (IM_STORE_CHECK)") {
		t.Errorf("%q", why)
	}
	loss := summary.LossText(s.Deliveries, func(v int64, _ int) string { return summary.Grouped(v) })
	if !strings.HasPrefix(loss, "0 of 45,200 expected deliveries lost, 7 late: ") || !strings.Contains(loss, ", 13,761 unchecked: not delivered when the drain ended, and the server did not answer 79 of 101 reads") {
		t.Errorf("%q", loss)
	}
}

// A verdict names every count that is not zero, whether a threshold judged
// it or not: a passed run with deliveries out of order says how many.
func TestThePassedVerdictNamesEveryCount(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r_2")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var s summary.Summary
	s.Messages.Sent, s.Messages.Acked = 5000, 5000
	s.Deliveries.Expected, s.Deliveries.Received, s.Deliveries.OutOfOrder, s.Deliveries.Duplicates = 50000, 50000, 1160, 3
	raw, _ := json.Marshal(s)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if level, line := verdict(dir, 0); level != "INFO" || !strings.Contains(line, "r_2 passed: 50,000 of 50,000 expected deliveries verified, 3 duplicated, 1,160 out of order") {
		t.Errorf("%s %q", level, line)
	}
}
