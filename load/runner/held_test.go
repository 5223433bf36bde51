package runner

import (
	"testing"
	"time"
)

// The users were held together from the last worker's start to the first
// worker's end.
func TestHeldSpanIsWhatEveryWorkerHeld(t *testing.T) {
	var h heldSpan
	if h.seconds() != 0 {
		t.Fatal("a run that held nobody held for a time")
	}
	t0 := time.Unix(1_800_000_000, 0)
	h.add(t0, t0.Add(60*time.Second))
	h.add(t0.Add(2*time.Second), t0.Add(61*time.Second))
	if got := h.seconds(); got != 58 {
		t.Fatalf("held %v s, want 58", got)
	}
}
