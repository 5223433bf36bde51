package report

import (
	"strings"
	"testing"
	"time"
)

// A stretch where Prometheus ran but scraped none of the target's own jobs
// (another run took its scrape targets) is flagged with its times; where
// Prometheus itself was down, the outage says it once.
func TestMissingTargetSeriesAreFlagged(t *testing.T) {
	scraped := func(at time.Time) bool { return at.Before(t0.Add(40*time.Second)) || at.After(t0.Add(80*time.Second)) }
	f := &fakeProm{started: t0.Add(-time.Hour), up: func(time.Time) bool { return true }, targetUp: scraped,
		groups: map[string][4]float64{"imbench-target": {10, 20, 1 << 20, 2 << 20}}}
	s := f.fetch(t)
	if len(s.TargetGaps) != 1 || s.TargetJobs != "reference-target" {
		t.Fatalf("gaps %v, jobs %q", s.TargetGaps, s.TargetJobs)
	}
	if g := s.TargetGaps[0]; g.From.Before(t0.Add(30*time.Second)) || g.To.After(t0.Add(90*time.Second)) {
		t.Fatalf("gap %v", g)
	}
	text := s.targetGapsText()
	if !strings.Contains(text, "The target's own series are missing (no data from 16:00:") || !strings.Contains(text, `job=~"reference-target"`) {
		t.Fatalf("%q", text)
	}

	f.up = scraped // Prometheus down over the same stretch: the outage's, not the target's
	if s := f.fetch(t); len(s.TargetGaps) != 0 || len(s.Outages) != 1 {
		t.Fatalf("gaps %v, outages %v", s.TargetGaps, s.Outages)
	}
	f.up, f.targetUp = func(time.Time) bool { return true }, nil
	if s := f.fetch(t); len(s.TargetGaps) != 0 || s.targetGapsText() != "" {
		t.Fatalf("gaps %v", s.TargetGaps)
	}
}
