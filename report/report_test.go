package report

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

var t0 = time.Date(2026, 11, 21, 16, 0, 0, 0, time.UTC)

func sampleSummary() summary.Summary {
	var s summary.Summary
	s.RunID, s.Scenario, s.Target, s.TargetAPI = "r1", "openim/test1", "reference", "http://127.0.0.1:10002"
	s.StartedAt, s.EndedAt = t0, t0.Add(2*time.Minute)
	s.Users.Registered, s.Users.Logins, s.Users.LateLogins, s.Users.OnlinePeak = 200, 200, 100, 200
	s.Groups.Count, s.Groups.BySize = 202, map[string]int{"200": 2, "5": 200}
	s.Messages.Sent, s.Messages.Acked, s.Messages.PeakPerSecond, s.Messages.AvgPerSecond, s.Messages.PlannedRate = 16450, 16450, 41, 40, 40
	s.Deliveries.Expected, s.Deliveries.Received, s.Deliveries.Pushed, s.Deliveries.ByPull = 217450, 217450, 112350, 105100
	s.Integrity = 1
	s.Latency.E2E = summary.LatencySummary{Count: 112350, Avg: 3.1, P50: 3, P95: 7.5, P99: 9.6, Max: 53}
	s.Latency.Ack = summary.LatencySummary{Count: 16450, Avg: 1.9, P50: 1.5, P95: 5, P99: 8.6, Max: 73}
	s.Generator.PullRequests, s.Generator.GapPullRequests, s.Generator.HeartbeatsSent, s.Generator.HeartbeatsSkipped = 150, 3, 2400, 610
	return s
}

// a series every 5 s over the window, with an optional hole.
func line(name string, v float64, hole ...time.Time) Line {
	l := Line{Name: name}
	for t := t0; !t.After(t0.Add(2 * time.Minute)); t = t.Add(5 * time.Second) {
		if len(hole) == 2 && t.After(hole[0]) && t.Before(hole[1]) {
			continue
		}
		l.Points = append(l.Points, [2]float64{float64(t.Unix()), v})
	}
	return l
}

func sampleSeries(hole ...time.Time) *Series {
	s := &Series{RunID: "r1", Prometheus: "http://127.0.0.1:9090", From: t0, To: t0.Add(2 * time.Minute), StepSec: 5,
		Coverage: 1, Machine: Machine{Hostname: "vm", CPUs: 2, Memory: 24 << 30}}
	for _, title := range chartPanels {
		c := Chart{Title: title, Unit: "short", Lines: []Line{line("a", 10, hole...), line("b", 20, hole...)}}
		c.Gaps = gaps(c.Lines, s.StepSec)
		s.Charts = append(s.Charts, c)
	}
	s.Resources = []Resource{
		{Component: "openim-msggateway", Role: "target", Processes: 1, CPUAvg: 210, CPUPeak: 250, RSSAvg: 2.1 * (1 << 30), RSSPeak: 2.3 * (1 << 30)},
		{Component: "openim-msgtransfer", Role: "target", Processes: 8, CPUAvg: 216, CPUPeak: 300, RSSAvg: 8 * 74 << 20, RSSPeak: 8 * 80 << 20},
		{Component: "imbench", Role: "generator", Processes: 1, CPUAvg: 40, CPUPeak: 60, RSSAvg: 100 << 20, RSSPeak: 120 << 20},
	}
	return s
}

func TestGapsFindHolesNotEdges(t *testing.T) {
	full := []Line{line("a", 1)}
	if g := gaps(full, 5); len(g) != 0 {
		t.Fatalf("complete series: gaps %v", g)
	}
	late := Line{Name: "late", Points: line("x", 1).Points[10:]} // starts 50 s in: not a hole
	if g := gaps([]Line{late}, 5); len(g) != 0 {
		t.Fatalf("a series starting late is not a hole: %v", g)
	}
	holed := []Line{line("a", 1, t0.Add(30*time.Second), t0.Add(70*time.Second))}
	g := gaps(holed, 5)
	if len(g) != 1 || !g[0].From.Equal(t0.Add(30*time.Second)) || !g[0].To.Equal(t0.Add(70*time.Second)) {
		t.Fatalf("gaps %v, want 16:00:30–16:01:10", g)
	}
}

func TestOutagesIncludeTheEdgesAndMerge(t *testing.T) {
	// Prometheus came up 40 s into the window and had a hole later on.
	beat := line("up", 1, t0.Add(70*time.Second), t0.Add(100*time.Second))
	beat.Points = beat.Points[8:]
	o := outages([]Line{beat}, t0, t0.Add(2*time.Minute), 5)
	if len(o) != 2 || !o[0].From.Equal(t0) || !o[0].To.Equal(t0.Add(40*time.Second)) ||
		!o[1].From.Equal(t0.Add(70*time.Second)) || !o[1].To.Equal(t0.Add(100*time.Second)) {
		t.Fatalf("outages %v", o)
	}
	if o := outages(nil, t0, t0.Add(time.Minute), 5); len(o) != 1 {
		t.Fatalf("no heartbeat at all: %v", o)
	}
	m := merge([]Gap{{t0.Add(10 * time.Second), t0.Add(30 * time.Second)}, {t0, t0.Add(15 * time.Second)}, {t0.Add(50 * time.Second), t0.Add(60 * time.Second)}})
	if len(m) != 2 || !m[0].From.Equal(t0) || !m[0].To.Equal(t0.Add(30*time.Second)) {
		t.Fatalf("merge %v", m)
	}
}

func TestMarkdownCarriesTheSummaryAndResources(t *testing.T) {
	r := &Report{Summary: sampleSummary(), Series: sampleSeries()}
	md := r.Markdown()
	for _, want := range []string{
		"| Total Messages | 16,450 sent (16,450 acknowledged, 0 failed); 217,450 deliveries: 112,350 pushed, 105,100 pulled |",
		"| Message Integrity | 100 % (all messages delivered) |",
		"| Average Latency | 0.003 seconds |",
		"| Maximum Latency | 0.053 seconds |",
		"| End-to-end (create → received) | 3.1 | 3.0 | 7.5 | 9.6 | 53.0 | 112,350 |",
		"| openim-msggateway | 210 % | 250 % | 2.10 GiB | 2.30 GiB |",
		"| openim-msgtransfer (8 processes) | 216 % (27 % × 8) | 300 % | 592 MiB | 640 MiB |",
		"| Total | 426 % | 550 % (sum of peaks) | 2.68 GiB | 2.92 GiB (sum of peaks) |",
		"| imbench | 40 % | 60 % | 100 MiB | 120 MiB |",
		"| Client Requests | 150 pulls (0.75 a user; 3 for a missing seq), 2,400 heartbeats (610 skipped: the connection had written), besides sends and acknowledgements |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(md, "incomplete") {
		t.Error("a complete run is reported incomplete")
	}
	s := sampleSummary()
	s.Deliveries.Lost, s.Integrity = 10, 0.999954
	md = (&Report{Summary: s}).Markdown()
	if !strings.Contains(md, "| Message Integrity | 99.9954 % (10 of 217,450 expected deliveries lost, 0 corrupted) |") {
		t.Errorf("shortfall not stated exactly:\n%s", md)
	}
	if !strings.Contains(md, "No Prometheus data for this run") {
		t.Error("a summary-only report does not say so")
	}
}

func TestHTMLDrawsEveryChartAndMarksHoles(t *testing.T) {
	r := &Report{Summary: sampleSummary(), Series: sampleSeries(t0.Add(30*time.Second), t0.Add(70*time.Second))}
	b, err := r.HTML()
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	svgs := regexp.MustCompile(`<svg [^>]*data-points="(\d+)"`).FindAllStringSubmatch(page, -1)
	if len(svgs) != len(chartPanels) {
		t.Fatalf("%d charts drawn, want %d", len(svgs), len(chartPanels))
	}
	for _, m := range svgs {
		if m[1] == "0" {
			t.Fatal("a chart with data drew no points")
		}
	}
	// each line breaks at the hole: two polylines per line
	if n := strings.Count(page, "<polyline"); n != len(chartPanels)*2*2 {
		t.Fatalf("%d polylines, want %d (lines broken at the hole)", n, len(chartPanels)*4)
	}
	if n := strings.Count(page, `class="gap"`); n != len(chartPanels) {
		t.Fatalf("%d holes shaded, want %d", n, len(chartPanels))
	}
	if !strings.Contains(page, "Incomplete: no data from 16:00:30 to 16:01:10.") {
		t.Fatal("the hole is not named")
	}
	for _, external := range []string{"http://", "https://", "src=", "<script", "@import", "url("} {
		for _, m := range regexp.MustCompile(regexp.QuoteMeta(external)+`[^"<\s]*`).FindAllString(page, -1) {
			// the only URLs are text: the target's and Prometheus' addresses, and the SVG namespace
			if !strings.Contains(m, "127.0.0.1") && m != "http://www.w3.org/2000/svg" {
				t.Errorf("report.html references %q", m)
			}
		}
	}
}

func TestGenerateWithoutPrometheusUsesSavedSeries(t *testing.T) {
	dir := t.TempDir()
	raw, _ := json.Marshal(sampleSummary())
	os.WriteFile(filepath.Join(dir, "summary.json"), raw, 0o644)
	r, err := Generate(context.Background(), dir, Options{})
	if err != nil || r.Series != nil {
		t.Fatalf("summary only: %v %v", r, err)
	}
	if err := sampleSeries().Save(dir); err != nil {
		t.Fatal(err)
	}
	r, err = Generate(context.Background(), dir, Options{Prom: &Prom{URL: "http://127.0.0.1:1"}})
	if err != nil || r.Series == nil || len(r.Series.Resources) != 3 {
		t.Fatalf("rebuilt from series.json: %+v %v", r, err)
	}
	for _, f := range []string{"report.md", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCompareFlagsRegressionsBeyondNoise(t *testing.T) {
	a := &Report{Summary: sampleSummary(), Series: sampleSeries()}
	same := &Report{Summary: sampleSummary(), Series: sampleSeries()}
	same.Summary.Latency.E2E.P99 += 4   // jitter under the floor
	same.Summary.Latency.E2E.Max += 400 // a maximum is one sample: shown, never flagged
	same.Series.Resources[0].CPUAvg += 8
	for _, r := range Compare(a, same, 0.1, 0) {
		if r.Flagged {
			t.Errorf("noise flagged: %+v", r)
		}
	}
	slow := &Report{Summary: sampleSummary(), Series: sampleSeries()}
	slow.Summary.Latency.E2E.Avg += 50
	slow.Summary.Latency.E2E.P50 += 50
	slow.Summary.Deliveries.Lost = 3
	flagged := map[string]bool{}
	for _, r := range Compare(a, slow, 0.1, 0) {
		flagged[r.Name] = r.Flagged
	}
	for _, name := range []string{"E2E latency avg", "E2E latency p50", "Lost"} {
		if !flagged[name] {
			t.Errorf("%s not flagged", name)
		}
	}
	if flagged["E2E latency p99"] || flagged["Messages sent"] {
		t.Error("unchanged figures flagged")
	}
	better := &Report{Summary: sampleSummary()}
	better.Summary.Latency.E2E.P50 = 0.5
	for _, r := range Compare(a, better, 0.1, 0) {
		if r.Flagged {
			t.Errorf("an improvement flagged: %+v", r)
		}
	}
}

// Every integrity count is flagged on any rise beyond the tolerance, never
// let through by the 10 % rule: two runs with losses, B's 1 % higher, are
// a regression.
func TestCompareFlagsEveryRiseOfAnIntegrityCount(t *testing.T) {
	counts := map[string]func(s *summary.Summary, v int64){
		"Lost":               func(s *summary.Summary, v int64) { s.Deliveries.Lost = v },
		"Lost, never stored": func(s *summary.Summary, v int64) { s.Deliveries.LostNeverStored = v },
		"Late":               func(s *summary.Summary, v int64) { s.Deliveries.Late = v },
		"Unchecked":          func(s *summary.Summary, v int64) { s.Deliveries.Unchecked = v },
		"Sends unanswered":   func(s *summary.Summary, v int64) { s.Messages.Unanswered = v },
		"Send failures":      func(s *summary.Summary, v int64) { s.Messages.SendFailed = v },
		"Duplicates":         func(s *summary.Summary, v int64) { s.Deliveries.Duplicates = v },
		"Out of order":       func(s *summary.Summary, v int64) { s.Deliveries.OutOfOrder = v },
		"Corrupted":          func(s *summary.Summary, v int64) { s.Deliveries.Corrupted = v },
		"Login failures":     func(s *summary.Summary, v int64) { s.Users.LoginFailures = &summary.LoginCauses{NoAnswer: v} },
		"Never online":       func(s *summary.Summary, v int64) { s.Users.NeverOnline = v },
	}
	for name, set := range counts {
		a := &Report{Summary: sampleSummary()}
		b := &Report{Summary: sampleSummary()}
		set(&a.Summary, 3446)
		set(&b.Summary, 3499) // 1.5 % more
		flagged := map[string]bool{}
		for _, r := range Compare(a, b, 0.1, 0) {
			flagged[r.Name] = r.Flagged
			if r.Flagged && r.Name != name {
				t.Errorf("%s: %s flagged too", name, r.Name)
			}
		}
		if !flagged[name] {
			t.Errorf("%s: 3,446 → 3,499 not flagged", name)
		}
		for _, r := range Compare(a, b, 0.1, 53) { // within the tolerance
			if r.Flagged {
				t.Errorf("%s: flagged within the tolerance: %+v", name, r)
			}
		}
		for _, r := range Compare(b, a, 0.1, 0) { // fewer: better
			if r.Flagged {
				t.Errorf("%s: a fall flagged: %+v", name, r)
			}
		}
	}
	md := CompareMarkdown(&Report{Summary: sampleSummary()}, &Report{Summary: sampleSummary()}, nil, 0.1, 0)
	if !strings.Contains(md, "an integrity count (†) higher in B by more than 0") {
		t.Errorf("%s", md)
	}
}

// report.md and report.html carry the thresholds as the terminal printed
// them, each with ✓ or ✗ and the run's figure.
func TestTheReportCarriesTheThresholds(t *testing.T) {
	dir := t.TempDir()
	raw, _ := json.Marshal(sampleSummary())
	os.WriteFile(filepath.Join(dir, "summary.json"), raw, 0o644)
	if err := summary.SaveThresholds(dir, []summary.Threshold{{Metric: "lost", Expr: "count==0", Actual: 3},
		{Metric: "e2e_p99", Expr: "value<1000", Actual: 9.6, Passed: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(context.Background(), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	for _, want := range []string{"## Thresholds", "1 of 2 thresholds crossed", "| ✗ | lost count==0 | 3 |", "| ✓ | e2e_p99 value<1000 | 9.6 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if !strings.Contains(string(html), "<td>lost count==0</td><td>3</td>") {
		t.Errorf("report.html lacks the crossed threshold")
	}
}
