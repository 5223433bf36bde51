package engine

import (
	"slices"
	"testing"
	"time"
)

// A burst of 400 sends in 172 ms is one second's 400 however the clock's
// second turns inside it: the meter counts the run's own seconds.
func TestABurstIsOneSecondsCount(t *testing.T) {
	due := time.Unix(1_800_000_000, 900*int64(time.Millisecond)) // 100 ms before the clock's second turns
	var m Meter
	m.begin(due)
	for i := range 400 {
		m.add(due.Add(time.Duration(i) * 430 * time.Microsecond))
	}
	m.add(due.Add(1500 * time.Millisecond))
	origin, counts := m.PerSecond()
	if !origin.Equal(due) || !slices.Equal(counts, []int64{400, 1}) {
		t.Fatalf("seconds from %v: %v, want [400 1] from %v", origin, counts, due)
	}
	if first, last := m.Span(); !first.Equal(due) || !last.Equal(due.Add(1500*time.Millisecond)) {
		t.Fatalf("span %v–%v", first, last)
	}
}

// Without a start set, the first send begins the run's first second; a
// send stamped before it counts in that second, not nowhere.
func TestTheFirstSendBeginsTheSecondsWithoutAStart(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 700*int64(time.Millisecond))
	var m Meter
	m.add(t0)
	m.add(t0.Add(-time.Millisecond))
	m.add(t0.Add(999 * time.Millisecond))
	if origin, counts := m.PerSecond(); !origin.Equal(t0) || !slices.Equal(counts, []int64{3}) {
		t.Fatalf("seconds from %v: %v", origin, counts)
	}
}
