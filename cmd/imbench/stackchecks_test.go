package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/imbench/imbench/report"
)

// checkReport: results/latest holds report.md, report.html and series.json;
// figures in report.md trace to summary.json and to Prometheus over the
// run's window; report.html draws every chart offline.
func checkReport(t *testing.T, s *testStack, run string) {
	dir := filepath.Join(s.root, "results", run)
	for _, f := range []string{"report.md", "report.html", "series.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("results/%s: %v", run, err)
		}
	}
	r, err := report.Load(dir)
	if err != nil || r.Series == nil {
		t.Fatalf("load: %v", err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	md := string(raw)
	sum := r.Summary
	cell := func(row string) string {
		m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(row) + ` \| (.*) \|$`).FindStringSubmatch(md)
		if m == nil {
			t.Fatalf("report.md has no row %q", row)
		}
		return m[1]
	}
	ints := func(s string) []int64 {
		var out []int64
		for _, f := range regexp.MustCompile(`\d[\d,]*(\.\d+)?`).FindAllString(s, -1) {
			v, _ := strconv.ParseFloat(strings.ReplaceAll(f, ",", ""), 64)
			out = append(out, int64(v))
		}
		return out
	}
	// From summary.json.
	if got, want := ints(cell("Total Messages")), []int64{sum.Messages.Sent, sum.Messages.Acked, sum.Messages.SendFailed,
		sum.Deliveries.Received, sum.Deliveries.Pushed, sum.Deliveries.ByPull}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Total Messages %v, summary.json says %v", got, want)
	}
	if got := cell("Maximum Latency"); got != fmt.Sprintf("%.3f seconds", sum.Latency.E2E.Max/1000) {
		t.Errorf("Maximum Latency %q, summary.json max %v ms", got, sum.Latency.E2E.Max)
	}
	if !strings.Contains(md, fmt.Sprintf("| End-to-end (create → received) | %.1f | %.1f | %.1f | %.1f | %.1f |",
		sum.Latency.E2E.Avg, sum.Latency.E2E.P50, sum.Latency.E2E.P95, sum.Latency.E2E.P99, sum.Latency.E2E.Max)) {
		t.Error("the e2e latency row differs from summary.json")
	}
	// From Prometheus over the window, queried afresh.
	window := fmt.Sprintf("%ds", int(r.Series.To.Sub(r.Series.From).Seconds()+0.999))
	// The generator's row is this run's own processes, from the CPU each
	// pushed with the run's id: the query the report stored.
	own, _, _ := strings.Cut(r.Series.Queries["generator_cpu_avg"], " @ ")
	if !r.Series.GeneratorOwn || own == "" {
		t.Fatalf("the generator row is not the run's own series (queries %v)", r.Series.Queries)
	}
	for _, c := range []struct{ row, expr string }{
		{"imbench-target", `100 * avg_over_time(imbench:component_cpu_cores{component="imbench-target"}[` + window + `])`},
		{"imbench", own},
	} {
		res, err := (report.Prom{URL: s.prom}).Instant(context.Background(), c.expr, r.Series.To)
		if err != nil || len(res) != 1 {
			t.Fatalf("%s: %v %v", c.expr, res, err)
		}
		m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(c.row) + `( \(\d+ processes\))? \| ([\d.]+) %`).FindStringSubmatch(md)
		if m == nil {
			t.Fatalf("no resource row for %s:\n%s", c.row, md)
		}
		shown, _ := strconv.ParseFloat(m[2], 64)
		if diff := shown - res[0].Value; diff > 0.5 || diff < -0.5 {
			t.Errorf("%s CPU avg shows %v %%, Prometheus says %.2f %%", c.row, shown, res[0].Value)
		}
	}
	charts, urls := browseReport(t, filepath.Join(dir, "report.html"))
	if len(charts) != 6 {
		t.Fatalf("%d charts in the page, want 6", len(charts))
	}
	for _, c := range charts {
		if c.Points == 0 || c.Lines == 0 || c.Length <= 0 || c.Width <= 0 || c.Height <= 0 {
			t.Errorf("chart %q drew nothing: %+v", c.Title, c)
		}
	}
	for _, u := range urls {
		if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
			t.Errorf("report.html requested %s", u)
		}
	}
}

// checkCompare: two runs alike compare clean (exit 0); a run with 50 ms
// added to every push is flagged (exit 3).
func checkCompare(t *testing.T, s *testStack, base string) {
	again := s.runScenario(t, "25")
	if r := s.cli("compare", "-a", base, "-b", again); r.code != 0 {
		t.Fatalf("equal runs: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	s.restartTarget(t, "IMBENCH_TARGET_FAULT_DELAY=50ms")
	slow := s.runScenario(t, "25")
	s.restartTarget(t)
	r := s.cli("compare", "-a", base, "-b", slow)
	if r.code != 3 || !regexp.MustCompile(`(?m)^\| E2E latency p50 \|.*\*\*worse\*\*`).MatchString(r.stdout) ||
		!strings.Contains(r.stderr, "E2E latency p50") {
		t.Fatalf("delayed run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// checkHoles: Prometheus is killed mid-run; the report still comes, from
// summary.json, and names the charts that have holes; once it is up again,
// the runner's remote write resumes.
func checkHoles(t *testing.T, s *testStack) {
	r := s.startRun(t, "6")
	time.Sleep(12 * time.Second)
	b, _ := os.ReadFile(filepath.Join(s.root, ".run", "prometheus.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 {
		t.Fatal("no prometheus pid")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 prometheus (pid %d): %v", pid, err)
	}
	time.Sleep(30 * time.Second)
	if r := s.cli("up"); r.code != 0 {
		t.Fatalf("up again: %s %s", r.stdout, r.stderr)
	}
	restarted := time.Now()
	out := r.wait(t)
	raw, err := os.ReadFile(filepath.Join(s.root, "results", "latest", "report.md"))
	if err != nil {
		t.Fatalf("no report after a Prometheus restart: %v\n%s", err, out)
	}
	md := string(raw)
	if !strings.Contains(md, "| Message Integrity | 100 % (all messages delivered) |") {
		t.Error("the results from summary.json are missing")
	}
	if n := strings.Count(md, "is incomplete: no data from"); n < 4 {
		t.Errorf("%d charts named incomplete after Prometheus was down 30 s:\n%s", n, md)
	}
	// Samples of the run stamped after the restart: a range selector is
	// open at its start, so the window begins exactly at the restart.
	now := time.Now()
	expr := fmt.Sprintf(`count_over_time(imbench_messages_sent_total{run_id=%q}[%dms])`, r.runID(t), now.Sub(restarted).Milliseconds())
	res, err := (report.Prom{URL: s.prom}).Instant(context.Background(), expr, now)
	if err != nil || len(res) == 0 {
		t.Errorf("the runner's remote write did not resume after Prometheus restarted at %s: %s gives %v %v",
			restarted.UTC().Format(time.RFC3339Nano), expr, res, err)
	}
}

// checkConsoleLog: what the run printed is in the log store by its run_id
// (source=console), the verdict at INFO; and a failing run's crossed
// thresholds, handleSummary error and verdict (at ERROR) too.
func checkConsoleLog(t *testing.T, s *testStack, run string, from time.Time) {
	t.Helper()
	find := func(run, level, prefix string) bool {
		for _, l := range s.logLines(fmt.Sprintf(`{run_id=%q} source:=console`, run), from, time.Now()) {
			if strings.Contains(l["_msg"], prefix) && l["level"] == level {
				return true
			}
		}
		return false
	}
	for _, want := range [][2]string{{"INFO", "imbench: verdict: " + run + " passed: "}, {"INFO", "imbench: results in "}, {"INFO", "| Message Integrity "}} {
		if !find(run, want[0], want[1]) {
			t.Errorf("VictoriaLogs has no %s line %q… of run %s", want[0], want[1], run)
		}
	}
	file := filepath.Join(t.TempDir(), "crossed.js")
	os.WriteFile(file, []byte(`import im from 'imbench';
import { planKnobs } from 'imbench/env';
export const plan = im.workload({ name: 'crossed', classes: [{ kind: 'pairs', pairs: 2, allOnline: true, rate: 5, messages: 3 }], ...planKnobs(__ENV) });
export const options = { thresholds: { e2e_p99: ['value<0'] } };
export function handleSummary(s) { return { stdout: im.table(s), [s.messages.sent > 0 ? '../outside.json' : 'inside.json']: '{}' }; }
`), 0o644) // a name only the run's own figures make: the check before load, with a summary of zeros, sees inside.json
	failed := "console_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if r := s.cli("run", "-scenario", file, "-run-id", failed); r.code != 99 || !strings.Contains(r.stdout, "imbench: verdict: "+failed+" failed (exit 99") {
		t.Fatalf("a run crossing its threshold: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for deadline := time.Now().Add(10 * time.Second); !find(failed, "ERROR", "imbench: verdict: "+failed+" failed") && time.Now().Before(deadline); {
		time.Sleep(500 * time.Millisecond)
	}
	for _, want := range [][2]string{{"ERROR", "imbench: verdict: " + failed + " failed (exit 99, crossed: e2e_p99 value<0)"},
		{"WARN", "imbench: thresholds crossed: e2e_p99 value<0"}, {"WARN", "imbench: handleSummary: \"../outside.json\""}} {
		if !find(failed, want[0], want[1]) {
			t.Errorf("VictoriaLogs has no %s line %q… of run %s", want[0], want[1], failed)
		}
	}
}
