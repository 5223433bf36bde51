package runner

import (
	"os"
	"path/filepath"
)

// MarkLatest points results/latest at run runID, replacing the link in one
// step (a link made aside, renamed over it): of runs finishing together,
// the last to finish is latest, and none fails for another's link.
func MarkLatest(resultsDir, runID string) error {
	tmp := filepath.Join(resultsDir, ".latest-"+runID)
	os.Remove(tmp)
	if err := os.Symlink(runID, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(resultsDir, "latest")); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
