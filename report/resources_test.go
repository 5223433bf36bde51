package report

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

// Only the target's process groups are the server: a real WuKongIM that
// happened to run on the host while the run used the reference target is
// named apart, in neither the table nor its Total, nor in the target's CPU
// around an outage.
func TestServerTableCountsOnlyTheTarget(t *testing.T) {
	s := sampleSeries()
	s.Resources = []Resource{
		{Component: "imbench-target", Role: "target", Processes: 1, CPUAvg: 120, CPUPeak: 180, RSSAvg: 200 << 20, RSSPeak: 260 << 20},
		{Component: "wukongim", Role: "other", Processes: 1, CPUAvg: 12, CPUPeak: 30, RSSAvg: 300 << 20, RSSPeak: 320 << 20},
		{Component: "imbench", Role: "generator", Processes: 1, CPUAvg: 40, CPUPeak: 60, RSSAvg: 100 << 20, RSSPeak: 120 << 20},
	}
	for i := range s.Charts {
		if s.Charts[i].Title == "CPU per component" {
			s.Charts[i].Lines = []Line{line("imbench-target", 100), line("wukongim", 70), line("imbench", 400)}
		}
	}
	sum := sampleSummary()
	w := summary.Outage{Start: t0.Add(20 * time.Second), End: t0.Add(21 * time.Second), Dropped: 10, Reconnects: 10}
	w.Finish()
	sum.Outages = &summary.Outages{Windows: []summary.Outage{w}}
	md := (&Report{Summary: sum, Series: s}).Markdown()
	server := md[strings.Index(md, "## Server resources"):strings.Index(md, "## Load generator")]
	for _, want := range []string{
		"| imbench-target | 120 % | 180 % | 200 MiB | 260 MiB |",
		"| Total | 120 % | 180 % (sum of peaks) | 200 MiB | 260 MiB (sum of peaks) |",
		"Also on this host, not part of the target (not in its table or Total): wukongim (CPU avg 12 %, memory avg 300 MiB).",
	} {
		if !strings.Contains(server, want) {
			t.Errorf("server resources lack %q:\n%s", want, server)
		}
	}
	if strings.Contains(server, "| wukongim") || strings.Contains(server, "| imbench |") {
		t.Errorf("the server table holds a process that is not the target's:\n%s", server)
	}
	if !strings.Contains(md[strings.Index(md, "## Load generator"):], "| imbench | 40 % | 60 % | 100 MiB | 120 MiB |") {
		t.Errorf("the generator row is missing:\n%s", md)
	}
	if !strings.Contains(md, "| 100 % peak |") {
		t.Errorf("the target's CPU around the outage counts another process:\n%s", md)
	}
}

// The generator row is this run's own processes when the runner pushed
// their CPU and memory; without them it is the host's imbench group, and
// says so when other runs' generators are in it.
func TestGeneratorRowIsThisRunsOwn(t *testing.T) {
	host := map[string][4]float64{"imbench-target": {120, 180, 200 << 20, 260 << 20}, "imbench": {90, 150, 300 << 20, 400 << 20}}
	always := func(time.Time) bool { return true }
	own := &fakeProm{started: t0.Add(-time.Hour), up: always, groups: host, own: &[4]float64{40, 60, 100 << 20, 120 << 20},
		otherRuns: map[string]string{"r2": "wukongim"}}
	s := own.fetch(t)
	md := (&Report{Summary: sampleSummary(), Series: s}).Markdown()
	for _, want := range []string{
		"| imbench | 40 % | 60 % | 100 MiB | 120 MiB |",
		"The imbench row is this run's own processes",
		"Other runs were under way during this one (they pushed figures to the same Prometheus): r2 (target wukongim).",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if !s.GeneratorOwn || s.Queries["generator_cpu_avg"] == "" {
		t.Errorf("own generator figures not recorded: %+v", s)
	}

	shared := &fakeProm{started: t0.Add(-time.Hour), up: always, groups: host, otherRuns: map[string]string{"r2": "wukongim"}}
	md = (&Report{Summary: sampleSummary(), Series: shared.fetch(t)}).Markdown()
	for _, want := range []string{
		"| imbench (every run's on this host) | 90 % | 150 % | 300 MiB | 400 MiB |",
		"the other runs' generators are in it",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}

	alone := &fakeProm{started: t0.Add(-time.Hour), up: always, groups: host}
	md = (&Report{Summary: sampleSummary(), Series: alone.fetch(t)}).Markdown()
	if !strings.Contains(md, "| imbench | 90 % | 150 % | 300 MiB | 400 MiB |") || strings.Contains(md, "Other runs were") {
		t.Errorf("a run alone on the host:\n%s", md)
	}
}

// The OpenIM report's table from a real server: a group no process matched
// (a comm that never matched, or a part not running) is named under the
// table, not left out silently; a group a local override redefines says
// what it counts.
func TestServerTableNamesWhatItCouldNotSee(t *testing.T) {
	s := sampleSeries()
	s.Resources = []Resource{
		{Component: "openim-msggateway", Role: "target", Processes: 1, CPUAvg: 11, CPUPeak: 56, RSSAvg: 60 << 20, RSSPeak: 70 << 20},
		{Component: "mongo", Role: "target", Processes: 18, CPUAvg: 14.5, CPUPeak: 54, RSSAvg: 400 << 20, RSSPeak: 420 << 20},
	}
	r := &Report{Summary: sampleSummary(), Series: s, Components: []Component{
		{Group: "openim-msggateway", Profile: "targets/openim/profile.yaml"},
		{Group: "openim-msgtransfer", Profile: "targets/openim/profile.yaml"},
		{Group: "mongo", Note: "FerretDB and PostgreSQL stand in for MongoDB", Profile: "targets/openim/profile.yaml (and profile.local.yaml beside it)"},
	}}
	md := r.Markdown()
	for _, want := range []string{
		"Not in the table or its Total: openim-msgtransfer: no process seen — check processes in targets/openim/profile.yaml.",
		"| mongo (18 processes): FerretDB and PostgreSQL stand in for MongoDB | 14 % (0.8 % × 18) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "openim-msggateway: no process seen") {
		t.Errorf("a group with a process named as unseen:\n%s", md)
	}
}

// The live view says the same of a group with no line on its CPU chart so
// far, and nothing while no process data has come at all.
func TestLiveNamesUnmatchedComponents(t *testing.T) {
	comps := []Component{{Group: "openim-msggateway", Profile: "targets/openim/profile.yaml"}, {Group: "kafka", Profile: "targets/openim/profile.yaml"}}
	s := &Series{Charts: []Chart{{Title: "CPU per component", Lines: []Line{line("kafka", 10)}}}}
	if got := s.unmatchedNote(comps); !strings.Contains(got, "openim-msggateway: no process seen") || strings.Contains(got, "kafka:") {
		t.Fatalf("note %q", got)
	}
	if got := (&Series{Charts: []Chart{{Title: "CPU per component"}}}).unmatchedNote(comps); got != "" {
		t.Fatalf("no data yet, note %q", got)
	}
}

// The CPU and memory charts, in the report and the live view, draw the
// target's components, the generator and the stack, each in a colour of
// its own; the host's other processes are named under the chart, as the
// table names them, and not drawn.
func TestResourceChartsDrawTheTargetGeneratorAndStack(t *testing.T) {
	comps := []Component{{Group: "openim-msggateway"}, {Group: "openim-msgtransfer"}, {Group: "mongo"}, {Group: "kafka"}, {Group: "redis"},
		{Group: "openim-push"}, {Group: "openim-rpc-msg"}, {Group: "openim-rpc"}, {Group: "openim-api"}, {Group: "etcd"}, {Group: "openim-crontask"}}
	f := &fakeProm{started: t0.Add(-time.Hour), up: func(time.Time) bool { return true }, groups: map[string][4]float64{}}
	for _, c := range comps {
		f.charted = append(f.charted, c.Group)
	}
	f.charted = append(f.charted, "imbench", "observability", "wukongim", "wildfire-im")
	prom := f.serve(t)
	want := []string{"etcd", "kafka", "mongo", "openim-api", "openim-crontask", "openim-msggateway", "openim-msgtransfer", "openim-push",
		"openim-rpc", "openim-rpc-msg", "redis", "imbench", "observability"}
	check := func(where string, s *Series) {
		t.Helper()
		charts := 0
		for _, c := range s.Charts {
			if !strings.Contains(c.Title, "component") {
				continue
			}
			charts++
			var got []string
			for _, l := range c.Lines {
				got = append(got, l.Name)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") || strings.Join(c.Others, ",") != "wildfire-im,wukongim" {
				t.Errorf("%s: %q draws %v, names %v as others", where, c.Title, got, c.Others)
			}
			_, items := svgChart(c, s.From, s.To, s.StepSec)
			colours := map[string]bool{}
			for _, it := range items {
				colours[it.Color] = true
				if !regexp.MustCompile(`^#[0-9a-f]{6}$`).MatchString(it.Color) {
					t.Errorf("%s: colour %q is not one a style attribute keeps", where, it.Color)
				}
			}
			if len(colours) != len(items) {
				t.Errorf("%s: %q's %d lines share colours (%d distinct)", where, c.Title, len(items), len(colours))
			}
			if note := chartNote(c, ""); !strings.Contains(note, "Not drawn: other processes on this host (wildfire-im, wukongim).") {
				t.Errorf("%s: %q's note %q", where, c.Title, note)
			}
		}
		if charts != 2 {
			t.Errorf("%s: %d per-component charts", where, charts)
		}
	}
	s, err := Fetch(context.Background(), prom, "r1", "openim", t0, t0.Add(2*time.Minute), Roles(comps))
	if err != nil {
		t.Fatal(err)
	}
	check("report", s)
	live, _, err := fetchCharts(context.Background(), prom, "r1", "openim", t0, t0.Add(2*time.Minute), Roles(comps))
	if err != nil {
		t.Fatal(err)
	}
	check("live view", live)
	page, err := LivePage(context.Background(), LiveOptions{Prom: prom, RunID: "r1", Target: "openim", From: t0, Every: 5 * time.Second, Components: comps}, t0.Add(2*time.Minute))
	if err != nil || !strings.Contains(string(page), "Not drawn: other processes on this host (wildfire-im, wukongim).") ||
		strings.Contains(string(page), ">wukongim<") {
		t.Errorf("the live page (%v) draws or does not name the others", err)
	}
}

// Where the run pushed the processes serving its ports, the target's row is
// those alone, with their PIDs named; what process-exporter's group of the
// same name had beyond them (another reference target on the host) is the
// machine's, named beside the table, not in its Total.
func TestTargetRowIsTheProcessOnTheRunsPorts(t *testing.T) {
	host := map[string][4]float64{"imbench-target": {120, 180, 200 << 20, 260 << 20}, "imbench": {90, 150, 300 << 20, 400 << 20}}
	f := &fakeProm{started: t0.Add(-time.Hour), up: func(time.Time) bool { return true }, groups: host,
		procs:  map[string]float64{"imbench-target": 2},
		server: map[string][4]float64{"imbench-target": {20, 35, 50 << 20, 60 << 20}}, pids: map[string][]string{"imbench-target": {"4242"}}}
	s := f.fetch(t)
	md := (&Report{Summary: sampleSummary(), Series: s, Components: []Component{{Group: "imbench-target", Profile: "targets/reference/profile.yaml"}}}).Markdown()
	for _, want := range []string{
		"| imbench-target | 20 % | 35 % | 50 MiB | 60 MiB |",
		"| Total | 20 % |",
		"Measured by the run's ports, not by name: imbench-target (PID 4242) listened on them",
		"imbench-target (other processes of that name) (CPU avg 100 %, memory avg 150 MiB)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if got := s.TargetPIDs["imbench-target"]; len(got) != 1 || got[0] != 4242 {
		t.Errorf("pids %v", got)
	}
	// A part forking short-lived children: process-exporter's peak count
	// above the run's own, and no memory beyond it, is no other process.
	f.groups = map[string][4]float64{"imbench-target": {20, 35, 50 << 20, 60 << 20}, "imbench": {90, 150, 300 << 20, 400 << 20}}
	f.procs = map[string]float64{"imbench-target": 8}
	md = (&Report{Summary: sampleSummary(), Series: f.fetch(t), Components: []Component{{Group: "imbench-target", Profile: "targets/reference/profile.yaml"}}}).Markdown()
	if strings.Contains(md, "other processes of that name") {
		t.Errorf("a row of others where none held memory:\n%s", md)
	}
}
