package report

import (
	"strings"
	"testing"
	"time"
)

// A latency chart with no delivery to measure for a while is quiet there,
// not incomplete: Prometheus was up and every other chart has its points.
// Where Prometheus itself was down, it is incomplete like every chart.
func TestALatencyChartWithoutTrafficIsQuietNotIncomplete(t *testing.T) {
	noTraffic := func(at time.Time) bool { return at.Before(t0.Add(40*time.Second)) || at.After(t0.Add(80*time.Second)) }
	f := &fakeProm{started: t0.Add(-time.Hour), up: func(time.Time) bool { return true }, traffic: noTraffic,
		groups: map[string][4]float64{"imbench-target": {10, 20, 1 << 20, 2 << 20}}}
	s := f.fetch(t)
	quiet := 0
	for _, c := range s.Charts {
		if !c.Complete() {
			t.Errorf("%q incomplete: %v", c.Title, c.Gaps)
		}
		if len(c.Quiet) > 0 {
			quiet++
			if !strings.Contains(c.Title, "latency") && !strings.Contains(c.Title, "acknowledgement") {
				t.Errorf("%q quiet", c.Title)
			}
			if note := chartNote(c, ""); !strings.Contains(note, "Nothing to measure (no traffic): from ") || strings.Contains(note, "Incomplete") {
				t.Errorf("%q: %q", c.Title, note)
			}
		}
	}
	if quiet != 2 {
		t.Errorf("%d quiet charts, want the two latency charts", quiet)
	}

	f.up = noTraffic // Prometheus down over the same stretch
	f.traffic = nil
	for _, c := range f.fetch(t).Charts {
		if c.Complete() || len(c.Quiet) > 0 {
			t.Errorf("%q with Prometheus down: complete %v, quiet %v", c.Title, c.Complete(), c.Quiet)
		}
	}
}
