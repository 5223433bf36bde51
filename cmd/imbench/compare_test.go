package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/summary"
)

// Two runs of one workload that both lost deliveries, B 1.5 % more: make
// compare exits 3 and names lost, however small the rise beside A's
// figure; within a tolerance given, it passes.
func TestCompareExitsOnMoreLoss(t *testing.T) {
	results := t.TempDir()
	for id, lost := range map[string]int64{"run_a": 3446, "run_b": 3499} {
		var s summary.Summary
		s.RunID, s.Scenario = id, "openim/fanout"
		s.Messages.Sent, s.Messages.Acked = 2000, 2000
		s.Deliveries.Expected, s.Deliveries.Lost, s.Deliveries.LostNeverStored = 100000, lost, lost
		s.Deliveries.Received = s.Deliveries.Expected - lost
		s.Integrity = summary.IntegrityOf(s.Deliveries.Expected, lost)
		raw, err := summary.Encode(&s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(results, id), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(results, id, "summary.json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := imbench(t, nil, "compare", "-a", "run_a", "-b", "run_b", "-results", results)
	if r.code != 3 || !strings.Contains(r.stderr, "run_b is worse than run_a: Lost, Lost, never stored") || !strings.Contains(r.stdout, "| Lost † | 3,446 | 3,499 | +1.5 % | **worse** |") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r := imbench(t, nil, "compare", "-a", "run_a", "-b", "run_b", "-results", results, "-tolerance", "60"); r.code != 0 {
		t.Fatalf("within the tolerance: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
