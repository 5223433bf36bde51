package summary

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Load reads a summary file (summary.json, or a segment's summary-*.json).
func Load(path string) (Summary, error) {
	var s Summary
	raw, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// PartFile is the partial summary a segment process writes, by its
// execution segment as k6 writes it ("1/4:1/2").
func PartFile(segment string) string {
	return "summary-" + strings.NewReplacer("/", "_", ":", "-").Replace(segment) + ".json"
}
