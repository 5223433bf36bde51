package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/catalog"
	"github.com/imbench/imbench/load/runner"
)

// cmdMerge merges the parts of a run split over machines (a Kubernetes
// Indexed Job's pods) into summary.json: imbench merge -run ID -segments N.
func cmdMerge(args []string) (int, error) {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	var (
		runID    = fs.String("run", "", "run id (required)")
		n        = fs.Int("segments", 0, "how many segments the run was split over (required)")
		results  = fs.String("results", "results", "results folder")
		scenario = fs.String("scenario", "", "the scenario, for its thresholds and handleSummary (default: the one the parts name, if it is under load/scenarios)")
		noThr    = fs.Bool("no-thresholds", false, "do not fail on the scenario's thresholds")
	)
	if err := fs.Parse(args); err != nil {
		return 0, badinput.Wrap(err)
	}
	if *runID == "" || *n < 1 {
		return 0, badinput.Errorf("imbench merge -run ID -segments N: both are required")
	}
	dir := filepath.Join(*results, *runID)
	name := *scenario
	if name == "" {
		if parts, _ := filepath.Glob(filepath.Join(dir, "summary-*.json")); len(parts) > 0 {
			if s, err := summary.Load(parts[0]); err == nil {
				name = s.Scenario
			}
		}
	}
	script := ""
	if f := catalog.Script(name); name != "" {
		if _, err := os.Stat(f); err == nil {
			script = f
		} else {
			fmt.Fprintf(os.Stderr, "imbench: %s not found here: the merged run is not checked against its thresholds\n", f)
		}
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	code, err := runner.MergeAndFinish(script, env, *runID, dir, *n, *noThr, os.Stdout, os.Stderr)
	if err != nil {
		return code, err
	}
	fmt.Printf("imbench: merged %d segments into %s\n", *n, filepath.Join(dir, "summary.json"))
	return code, nil
}
