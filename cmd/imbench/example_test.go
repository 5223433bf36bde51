package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/internal/testmachine"
)

// The worked example of docs/workloads.md, copied to a folder outside the
// repository, runs verified over each protocol the first time: its knobs,
// thresholds and handleSummary as the page writes them.
func TestTheDocsWorkedExampleRunsOverEveryProtocol(t *testing.T) {
	testmachine.Shared(t)
	file := docsExample(t, "my-workload.js")
	tg := startTarget(t)
	for _, proto := range []string{"openim", "wukongim", "wildfire"} {
		t.Run(proto, func(t *testing.T) {
			testmachine.Shared(t)
			results := t.TempDir()
			env := append(tg.env(), "IM_DRAIN_QUIET=1s")
			r := imbench(t, env, "run", "-scenario", file, "-protocol", proto, "-scale", "0.2", "-duration", "5s", "-results", results)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			raw, err := os.ReadFile(filepath.Join(results, "latest", "deliveries.json"))
			if err != nil {
				t.Fatal(err)
			}
			var d struct{ Expected, Received, Lost int64 }
			if err := json.Unmarshal(raw, &d); err != nil || d.Expected == 0 || d.Received != d.Expected || d.Lost != 0 {
				t.Fatalf("deliveries.json (%v): %s", err, raw)
			}
		})
	}
}

// docsExample is docs/examples/<name> copied to a folder outside the
// repository, as a user's own file would be.
func docsExample(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("../../docs/examples", name))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// eachProtocol runs a scenario file over the three protocols side by side
// against one target (each run a minute or two of light sending), and
// hands check each run's summary and its results folder.
func eachProtocol(t *testing.T, file string, check func(t *testing.T, s summary.Summary, results string)) {
	tg := startTarget(t)
	for _, proto := range []string{"openim", "wukongim", "wildfire"} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			results := t.TempDir()
			r := imbench(t, append(tg.env(), "IM_DRAIN_QUIET=1s"), "run", "-scenario", file, "-protocol", proto, "-results", results)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			s, err := summary.Load(filepath.Join(results, "latest", "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			check(t, s, filepath.Join(results, "latest"))
		})
	}
}
