package summary

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/latency"
)

// Three processes' partial summaries merge into the figures one process
// would have counted, latency percentiles included.
func TestMergeAddsUpExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	all := latency.NewHistogram()
	t0 := time.Unix(1_800_000_000, 0).UTC()
	var parts []Summary
	for i := 0; i < 3; i++ {
		h := latency.NewHistogram()
		for j := 0; j < 1000*(i+1); j++ {
			v := int64(rng.ExpFloat64() * 4000)
			h.Record(v)
			all.Record(v)
		}
		enc, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		var p Summary
		p.RunID, p.Segment = "r", []string{"0:1/3", "1/3:2/3", "2/3:1"}[i]
		p.StartedAt, p.EndedAt = t0.Add(time.Duration(i)*100*time.Millisecond), t0.Add(time.Minute+time.Duration(i)*time.Second)
		p.Users.Registered = 30
		p.Messages.Sent, p.Messages.PerSecondStartMs, p.Messages.PerSecond = 100, t0.UnixMilli()+int64(i)*1000+int64(i)*7, []int64{40, 60}
		// Each part's own seconds: the first send at the start of its first, the last late in its second.
		p.Messages.FirstSendMs, p.Messages.LastSendMs = t0.UnixMilli()+int64(i)*1000, t0.UnixMilli()+int64(i)*1000+1999
		p.Deliveries.Expected, p.Deliveries.Received = 1000, 1000
		p.Deliveries.Lost = []int64{5, -5, 2}[i] // a process's own figure need not add up; the sum does
		p.Deliveries.Unchecked = []int64{0, 1, 3}[i]
		p.Generator.UserRanges = [][2]uint32{{uint32(10 * i), uint32(10*i + 10)}}
		p.Histograms = map[string]latency.Encoded{"e2e": enc}
		parts = append(parts, p)
	}
	m, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if m.Messages.Sent != 300 || m.Deliveries.Expected != 3000 || m.Deliveries.Lost != 2 || m.Deliveries.Unchecked != 4 || m.Integrity != 0.998 {
		t.Fatalf("sums: %+v %+v integrity %v", m.Messages, m.Deliveries, m.Integrity)
	}
	// seconds t0, t0+1, t0+2, t0+3 get 40, 100, 100, 60: the busiest is 100
	if m.Messages.PeakPerSecond != 100 || len(m.Messages.PerSecond) != 4 || m.Messages.PerSecond[0] != 40 {
		t.Fatalf("per second %v peak %d", m.Messages.PerSecond, m.Messages.PeakPerSecond)
	}
	if m.Messages.AvgPerSecond != 75.02 { // 300 sends over 3.999 s
		t.Fatalf("average %v", m.Messages.AvgPerSecond)
	}
	want := LatencyOf(all)
	if m.Latency.E2E != want {
		t.Fatalf("merged latency %+v, one histogram of everything says %+v", m.Latency.E2E, want)
	}
	if len(m.Parts) != 3 || !m.StartedAt.Equal(t0) || !m.EndedAt.Equal(t0.Add(time.Minute+2*time.Second)) {
		t.Fatalf("parts %v window %v–%v", m.Parts, m.StartedAt, m.EndedAt)
	}
	if len(m.Warnings) != 0 {
		t.Fatalf("warnings %v", m.Warnings)
	}
}

func TestMergeRefusesOverlapsGapsAndForeignParts(t *testing.T) {
	part := func(run string, lo, hi uint32) Summary {
		var p Summary
		p.RunID = run
		p.Users.Registered = 20
		p.Generator.UserRanges = [][2]uint32{{lo, hi}}
		return p
	}
	for name, c := range map[string]struct {
		parts []Summary
		want  string
	}{
		"overlap":   {[]Summary{part("r", 0, 12), part("r", 10, 20)}, "held by two processes"},
		"gap":       {[]Summary{part("r", 0, 10), part("r", 11, 20)}, "held by no process"},
		"short":     {[]Summary{part("r", 0, 10), part("r", 10, 19)}, "held by no process"},
		"other run": {[]Summary{part("r", 0, 10), part("s", 10, 20)}, "runs r and s"},
	} {
		if _, err := Merge(c.parts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

func TestMergeWarnsWhenClocksDisagree(t *testing.T) {
	var a, b Summary
	a.RunID, b.RunID = "r", "r"
	a.Users.Registered, b.Users.Registered = 2, 2
	a.Generator.UserRanges, b.Generator.UserRanges = [][2]uint32{{0, 1}}, [][2]uint32{{1, 2}}
	a.StartedAt = time.Unix(100, 0)
	b.StartedAt = time.Unix(105, 0)
	b.Latency.E2E.Negative = 7
	m, err := Merge([]Summary{a, b})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(m.Warnings, "\n")
	if !strings.Contains(joined, "disagree on when the run started by 5s") || !strings.Contains(joined, "7 deliveries arrived before") {
		t.Fatalf("warnings: %v", m.Warnings)
	}
}

// The processes' login costs add up, time to online merged from the
// histograms, and the table shows them.
func TestLoginCostMergesAndShows(t *testing.T) {
	all := latency.NewHistogram()
	var parts []Summary
	for i := 0; i < 2; i++ {
		h := latency.NewHistogram()
		for j := 1; j <= 100*(i+1); j++ {
			us := int64(j * 1000 * (i + 1))
			h.Record(us)
			all.Record(us)
		}
		enc, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		var p Summary
		p.RunID, p.Segment = "r", []string{"0:1/2", "1/2:1"}[i]
		p.Users.Registered = 20
		p.Generator.UserRanges = [][2]uint32{{uint32(10 * i), uint32(10*i + 10)}}
		p.Logins = &LoginsSummary{Mode: "sdk", Count: int64(100 * (i + 1)), Failed: int64(i), Requests: int64(2000 * (i + 1))}
		p.Histograms = map[string]latency.Encoded{"login": enc}
		parts = append(parts, p)
	}
	m, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	l := m.Logins
	if l == nil || l.Mode != "sdk" || l.Count != 300 || l.Failed != 1 || l.Requests != 6000 || l.RequestsPerLogin != 20 {
		t.Fatalf("merged logins %+v", l)
	}
	if l.TimeToOnline != LatencyOf(all) {
		t.Fatalf("time to online %+v, one histogram of everything says %+v", l.TimeToOnline, LatencyOf(all))
	}
	if tab := m.Table(); !strings.Contains(tab, "| Login Cost") || !strings.Contains(tab, "300 logins (sdk), 20.0 requests each") {
		t.Fatalf("table without the login cost:\n%s", tab)
	}
	parts[0].Logins, parts[1].Logins = nil, nil
	if m, _ := Merge(parts); m.Logins != nil || strings.Contains(m.Table(), "Login Cost") {
		t.Fatal("summaries without login cost merged into one with it")
	}
}

// The users of a missing segment are named as the gaps between the ranges
// the other segments held.
func TestUnheldUsers(t *testing.T) {
	if got := unheld([][2]uint32{{6, 9}, {0, 3}}, 12); got != "3..5, 9..11" {
		t.Fatalf("unheld = %q", got)
	}
	if got := unheld([][2]uint32{{0, 12}}, 12); got != "" {
		t.Fatalf("unheld = %q", got)
	}
}
