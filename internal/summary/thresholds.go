package summary

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// ThresholdsFile is where a run's threshold results are kept, beside
// summary.json, for its report.
const ThresholdsFile = "thresholds.json"

// Threshold is one threshold of the scenario, checked on the run's summary.
type Threshold struct {
	Metric string  `json:"metric"`
	Expr   string  `json:"expr"`
	Actual float64 `json:"actual"`
	Passed bool    `json:"passed"`
	Absent bool    `json:"absent,omitempty"` // no figure: a latency with no sample
	// Implicit: imbench's own integrity threshold, which the workload did
	// not name (every run fails on an undelivered count unless relaxed).
	Implicit bool `json:"implicit,omitempty"`
}

// SaveThresholds writes rs into the run's folder dir.
func SaveThresholds(dir string, rs []Threshold) error {
	raw, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ThresholdsFile), append(raw, '\n'), 0o644)
}

// LoadThresholds reads the run's threshold results; none when the run
// checked none (or was checked with -no-thresholds).
func LoadThresholds(dir string) ([]Threshold, error) {
	raw, err := os.ReadFile(filepath.Join(dir, ThresholdsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rs []Threshold
	return rs, json.Unmarshal(raw, &rs)
}
