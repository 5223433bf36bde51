package report

import (
	"strings"
	"testing"
	"time"
)

var targetOnly = map[string][4]float64{"imbench-target": {120, 180, 200 << 20, 260 << 20}}

// A first run right after `make up`: Prometheus started 8 s into the
// window and had its first sample at 20 s. That is its startup, said once,
// not an incomplete run; a hole later on still is one.
func TestPrometheusStartupIsNotIncomplete(t *testing.T) {
	from20 := func(at time.Time) bool { return !at.Before(t0.Add(20 * time.Second)) }
	f := &fakeProm{started: t0.Add(8 * time.Second), up: from20, groups: targetOnly}
	s := f.fetch(t)
	if s.Startup == nil || !s.Startup.To.Equal(t0.Add(20*time.Second)) || len(s.Outages) != 0 {
		t.Fatalf("startup %v, outages %v", s.Startup, s.Outages)
	}
	md := (&Report{Summary: sampleSummary(), Series: s}).Markdown()
	page, err := (&Report{Summary: sampleSummary(), Series: s}).HTML()
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"report.md": md, "report.html": string(page)} {
		if strings.Contains(strings.ToLower(text), "incomplete") || strings.Contains(text, "Prometheus itself has no data") {
			t.Errorf("%s calls the startup incomplete:\n%s", what, text)
		}
	}
	want := "Prometheus started with this run (at 16:00:08 UTC): nothing is measured before its first sample, " +
		"the window's first 20s (16:00:00 to 16:00:20)"
	if strings.Count(md, want) != 1 {
		t.Errorf("the startup is not said once:\n%s", md)
	}

	hole := func(at time.Time) bool {
		return from20(at) && (at.Before(t0.Add(60*time.Second)) || at.After(t0.Add(90*time.Second)))
	}
	f = &fakeProm{started: t0.Add(8 * time.Second), up: hole, groups: targetOnly}
	md = (&Report{Summary: sampleSummary(), Series: f.fetch(t)}).Markdown()
	for _, want := range []string{"Prometheus itself has no data (no data from 16:00:55 to 16:01:35)",
		`Chart "Online users" is incomplete`, "Incomplete: these figures rest on"} {
		if !strings.Contains(md, want) {
			t.Errorf("a mid-run hole is not flagged (%q):\n%s", want, md)
		}
	}
}

// Only a Prometheus that started with the run has a startup: one running
// long before without samples, or started well into the run, had an outage.
func TestStartupNeedsPrometheusStartingWithTheRun(t *testing.T) {
	first := t0.Add(20 * time.Second)
	for _, c := range []struct {
		name           string
		started, first time.Time
		startup        bool
	}{
		{"started with the run", t0.Add(8 * time.Second), first, true},
		{"started just before the window", t0.Add(-5 * time.Second), first, true},
		{"running long before", t0.Add(-10 * time.Minute), first, false},
		{"no start time", time.Time{}, first, false},
		{"started two minutes into the run", t0.Add(2 * time.Minute), t0.Add(2*time.Minute + 5*time.Second), false},
		{"a sample at the window's start", t0.Add(-5 * time.Second), t0, false},
	} {
		if g := startupGap(t0, c.started, c.first); (g != nil) != c.startup {
			t.Errorf("%s: startup %v", c.name, g)
		}
	}
	// an outage right after the startup stays one
	startup := &Gap{From: t0, To: first}
	outs := withoutStartup([]Gap{{From: t0, To: t0.Add(40 * time.Second)}, {From: t0.Add(time.Minute), To: t0.Add(80 * time.Second)}}, startup)
	if len(outs) != 2 || !outs[0].From.Equal(first) || !outs[0].To.Equal(t0.Add(40*time.Second)) {
		t.Errorf("outages after the startup: %v", outs)
	}
}
