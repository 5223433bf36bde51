package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Runs finishing together each point results/latest at themselves without
// failing; the link is always one of theirs, and the last one marked wins.
func TestLatestIsTheRunThatFinishedLast(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- MarkLatest(dir, fmt.Sprintf("run%d", i))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := MarkLatest(dir, "last"); err != nil {
		t.Fatal(err)
	}
	if to, err := os.Readlink(filepath.Join(dir, "latest")); err != nil || to != "last" {
		t.Fatalf("latest → %q (%v)", to, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".latest-*")); len(left) != 0 {
		t.Fatalf("left %v", left)
	}
}
