package runner

import (
	"os"
	"path/filepath"
	"testing"
)

// A scenario's handleSummary writes a relative name into the run's folder
// and an absolute path where it says, never over the runner's own records.
func TestHandleSummaryOutputsStayOffTheRunnersFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"summary.json", SetupFile, TeardownFile, "summary-0.json", "../x.txt", filepath.Join(dir, "summary.json")} {
		if err := writeOutput(dir, name, "x"); err == nil {
			t.Errorf("%s was written", name)
		}
	}
	if err := writeOutput(dir, "out/mine.json", "{}"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "mine.json")); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "mine", "summary.json")
	if err := writeOutput(dir, elsewhere, "{}"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(elsewhere); err != nil {
		t.Fatal(err)
	}
}
