package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/testmachine"
)

// A scenario's threshold on lost deliveries fails the run with exit 99 when
// the target loses messages, and says which threshold and by how much; the
// summary is still written.
func TestLostDeliveriesCrossTheThreshold(t *testing.T) {
	testmachine.Shared(t)
	tg := startTarget(t, "-fault-lose", "0.02")
	results := t.TempDir()
	r := imbench(t, tg.env(), "run", "-scenario", "openim/test1", "-scale", "0.25", "-rate", "300", "-results", results)
	if r.code != 99 || !strings.Contains(r.stderr, "thresholds crossed: lost count==0") || !strings.Contains(r.stdout, "✗ lost count==0") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	raw, err := os.ReadFile(filepath.Join(results, "latest", "summary.json"))
	var s runSummary
	if err != nil || json.Unmarshal(raw, &s) != nil || s.Deliveries.Lost == 0 ||
		s.Deliveries.Lost != tg.counter(t, "imbench_target_fault_lost_deliveries_total") {
		t.Fatalf("summary (%v): lost %d", err, s.Deliveries.Lost)
	}
}

// A scenario of the user's own, given as a file: its handleSummary writes
// the files it returns into the run's folder and replaces the table on
// stdout; im.table gives the table to a handleSummary that wants it.
func TestHandleSummaryWritesItsFiles(t *testing.T) {
	testmachine.Shared(t)
	tg := startTarget(t)
	script := filepath.Join(t.TempDir(), "mine.js")
	os.WriteFile(script, []byte(`import im from 'imbench';
export const plan = im.workload({
  name: 'mine', classes: [{ kind: 'groups', groups: 2, members: 5, allOnline: true, rate: 20, messages: 5 }],
  runId: __ENV.IM_RUN_ID,
});
export const options = { thresholds: { lost: ['count==0'], e2e_latency: ['p(99)<5000'], integrity: ['rate==1'] } };
export function handleSummary(s) {
  return {
    'mine.json': JSON.stringify({ received: s.deliveries.received, expected: s.deliveries.expected }),
    'table.md': im.table(s),
    stdout: 'mine: ' + s.deliveries.received + ' of ' + s.deliveries.expected + '\n',
  };
}
`), 0o644)
	results := t.TempDir()
	r := imbench(t, tg.env(), "run", "-scenario", script, "-results", results)
	if r.code != 0 || !strings.Contains(r.stdout, "mine: 40 of 40") || strings.Contains(r.stdout, "| Parameter/Result") ||
		!strings.Contains(r.stdout, "✓ e2e_latency p(99)<5000") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	dir, _ := filepath.EvalSymlinks(filepath.Join(results, "latest"))
	var mine struct{ Received, Expected int }
	raw, err := os.ReadFile(filepath.Join(dir, "mine.json"))
	if err != nil || json.Unmarshal(raw, &mine) != nil || mine.Received != 40 || mine.Expected != 40 {
		t.Fatalf("mine.json (%v): %s", err, raw)
	}
	if table, err := os.ReadFile(filepath.Join(dir, "table.md")); err != nil || !strings.Contains(string(table), "| Message Integrity      | 100%") {
		t.Fatalf("table.md (%v): %s", err, table)
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
		t.Fatal("summary.json is written whatever handleSummary returns")
	}
}
