package runner

import "testing"

// The generator's own figures, pushed per run, are this process's.
func TestProcessFiguresAreThisProcesss(t *testing.T) {
	before, err := processCPUSeconds()
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x ^= i
	}
	after, err := processCPUSeconds()
	if err != nil || after <= before {
		t.Fatalf("CPU %v → %v after work (%d): %v", before, after, x, err)
	}
	rss, err := processRSSBytes()
	if err != nil || rss < 1<<20 {
		t.Fatalf("RSS %v B: %v", rss, err)
	}
}
