package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/imbench/imbench/internal/testmachine"
)

// The worked example of docs/workloads.md, copied to a folder outside the
// repository, runs verified over each protocol the first time: its knobs,
// thresholds and handleSummary as the page writes them.
func TestTheDocsWorkedExampleRunsOverEveryProtocol(t *testing.T) {
	testmachine.Shared(t)
	src, err := os.ReadFile("../../docs/examples/my-workload.js")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "my-workload.js")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
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
