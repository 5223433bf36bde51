package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/segment"
)

// MergeAndFinish merges a split run's parts and ends it as a whole run
// ends: the table or the scenario's handleSummary, its thresholds.
func MergeAndFinish(script string, env map[string]string, runID, dir string, n int, noThresholds bool, stdout, stderr io.Writer) (int, error) {
	merged, err := MergeSegments(dir, n)
	if err != nil {
		return 1, err
	}
	code := 0
	if len(merged.Missing) > 0 {
		code = 1
	}
	var sc *Script
	if script != "" {
		if sc, err = Load(script, env, runID); err != nil {
			return 1, err
		}
	}
	for _, w := range merged.Warnings {
		fmt.Fprintln(stdout, "imbench: warning:", w)
	}
	return max(code, Finish(sc, merged, dir, noThresholds, stdout, stderr)), nil
}

// MergeSegments reads the partial summaries of the n segments in dir and
// writes summary.json. A segment without one (its process was killed) is named
// in Missing and a warning; the others' results are kept.
func MergeSegments(dir string, n int) (summary.Summary, error) {
	var parts []summary.Summary
	var missing []string
	for i := 0; i < n; i++ {
		seg := segment.Segment{Index: i, Count: n}.Interval()
		f := filepath.Join(dir, summary.PartFile(seg))
		if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, seg)
			continue
		}
		s, err := summary.Load(f)
		if err != nil {
			return summary.Summary{}, err
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return summary.Summary{}, fmt.Errorf("none of the %d segments wrote a summary (see the seg*.log files)", n)
	}
	merged, err := summary.MergeMissing(parts, missing)
	if err != nil {
		return merged, err
	}
	// Segments register nobody: the setup process says what it registered.
	var setup engine.SetupReport
	if raw, err := os.ReadFile(filepath.Join(dir, SetupFile)); err == nil && json.Unmarshal(raw, &setup) == nil {
		merged.Users.NewlyRegistered = setup.Registered
		merged.Setup.WritesRedone = int64(setup.WritesRedone)
	}
	raw, invalid := summary.Encode(&merged)
	if raw == nil {
		return merged, invalid
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), raw, 0o644); err != nil {
		return merged, err
	}
	return merged, invalid
}
