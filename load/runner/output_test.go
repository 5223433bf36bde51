package runner

import (
	"os"
	"path/filepath"
	"testing"
)

// A scenario's handleSummary writes into the run's folder, never over the
// runner's own records or outside the folder.
func TestHandleSummaryOutputsStayOffTheRunnersFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"summary.json", SetupFile, TeardownFile, "summary-0.json", "../x.txt", "/tmp/x.txt"} {
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
}
