// Package report turns a run's summary.json and Prometheus' series over the
// run's window into results/<run>/report.md and report.html (one
// self-contained file), keeps the series it used in series.json so a report
// can be rebuilt after Prometheus is gone, and compares two runs.
package report

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/imbench/imbench/dashboards"
	"github.com/imbench/imbench/internal/profile"
)

// The report's charts are these panels of the "IM benchmark" dashboard,
// with the same queries, so Grafana and the report show the same thing.
var chartPanels = []string{
	"Online users",
	"Messages per minute",
	"End-to-end latency",
	"Send → acknowledgement",
	"CPU per component",
	"Resident memory per component",
}

// resourcePanel is the dashboard's table of the same name.
const resourcePanel = "Resources per component"

// Series is what report.html and report.md are built from, besides
// summary.json; it is saved as series.json.
type Series struct {
	RunID      string     `json:"run_id"`
	Prometheus string     `json:"prometheus"`
	From       time.Time  `json:"from"`
	To         time.Time  `json:"to"`
	StepSec    int        `json:"step_seconds"`
	FetchedAt  time.Time  `json:"fetched_at"`
	Charts     []Chart    `json:"charts"`
	Resources  []Resource `json:"resources"`
	Coverage   float64    `json:"resource_coverage"`            // share of the window the resource figures cover
	Outages    []Gap      `json:"prometheus_outages,omitempty"` // stretches Prometheus was not running
	// TargetGaps are stretches, Prometheus running, with none of the
	// target's own scrape jobs up (TargetJobs): its series missing there.
	TargetGaps []Gap             `json:"target_series_gaps,omitempty"`
	TargetJobs string            `json:"target_jobs,omitempty"`
	Machine    Machine           `json:"machine"`
	BuildInfo  []BuildInfo       `json:"build_info"`
	Queries    map[string]string `json:"queries"` // what each figure came from

	// Prometheus' process start, and the window's stretch before its first
	// sample when it started with the run (not an outage: startup.go).
	PrometheusStarted time.Time `json:"prometheus_started,omitzero"`
	Startup           *Gap      `json:"prometheus_startup,omitempty"`
	// The generator row is this run's own processes (their pushed CPU and
	// memory), not process-exporter's imbench group of the whole host.
	GeneratorOwn bool `json:"generator_own,omitempty"`
	// TargetPIDs are, per component, the processes that served the run's
	// ports on its machine: those rows are theirs alone (pushed by the run),
	// not process-exporter's group of every process of that name.
	TargetPIDs map[string][]int `json:"target_pids,omitempty"`
	// Runs that pushed load figures during this one's window.
	OtherRuns []OtherRun `json:"other_runs,omitempty"`
}

// Chart is one panel over the run's window.
type Chart struct {
	Title string `json:"title"`
	Unit  string `json:"unit"`
	Lines []Line `json:"lines"`
	Gaps  []Gap  `json:"gaps,omitempty"` // holes in the data (e.g. Prometheus was down)
	// Quiet are stretches of a latency chart with no delivery or
	// acknowledgement to measure: no data, and nothing missing either.
	Quiet []Gap `json:"quiet,omitempty"`
	// Others are process groups on the host that are neither the target's,
	// the generator nor the stack: named, not drawn, as the table does.
	Others []string `json:"others_on_host,omitempty"`
}

// Line is one series of a chart.
type Line struct {
	Name   string       `json:"name"`
	Expr   string       `json:"expr"`
	Points [][2]float64 `json:"points"` // unix seconds, value
}

// Gap is a stretch of the window without samples.
type Gap struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// Resource is one row of the report's resource table: CPU in % of one core
// (the OpenIM report's "210 %") and resident memory, average and peak.
type Resource struct {
	Component string  `json:"component"`
	Role      string  `json:"role"` // target, generator, observability, other
	Processes float64 `json:"processes"`
	CPUAvg    float64 `json:"cpu_avg_percent"`
	CPUPeak   float64 `json:"cpu_peak_percent"`
	RSSAvg    float64 `json:"rss_avg_bytes"`
	RSSPeak   float64 `json:"rss_peak_bytes"`
}

// Machine is what node_exporter says about the host.
type Machine struct {
	Hostname string  `json:"hostname"`
	Kernel   string  `json:"kernel"`
	Arch     string  `json:"arch"`
	CPUs     int     `json:"cpus"`
	Memory   float64 `json:"memory_bytes"`
}

// BuildInfo is one *_build_info series: a component and its version.
type BuildInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Complete reports whether a chart has data over the whole window.
func (c Chart) Complete() bool { return len(c.Gaps) == 0 && c.HasData() }

// HasData reports whether any line has a point.
func (c Chart) HasData() bool {
	for _, l := range c.Lines {
		if len(l.Points) > 0 {
			return true
		}
	}
	return false
}

// Fetch queries Prometheus for a run's window [from, to]. roles maps a
// component to its role in the report (the target's parts, the generator…).
func Fetch(ctx context.Context, prom Prom, runID, target string, from, to time.Time, roles map[string]string) (*Series, error) {
	s, panels, err := fetchCharts(ctx, prom, runID, target, from, to, roles)
	if err != nil {
		return nil, err
	}
	fill, window := queryFill(runID, target, from, to)

	table, ok := panels[resourcePanel]
	if !ok {
		return nil, fmt.Errorf("dashboard has no panel %q", resourcePanel)
	}
	rows := map[string]*Resource{}
	for i, t := range table.Targets {
		expr := fill.Replace(t.Expr)
		s.Queries[[]string{"cpu_avg", "cpu_peak", "rss_avg", "rss_peak", "processes"}[i]] = expr + " @ " + to.UTC().Format(time.RFC3339)
		res, err := prom.Instant(ctx, expr, to)
		if err != nil {
			return nil, err
		}
		for _, r := range res {
			name := r.Metric["component"]
			row := rows[name]
			if row == nil {
				row = &Resource{Component: name, Role: roleOf(name, roles)}
				rows[name] = row
			}
			*[]*float64{&row.CPUAvg, &row.CPUPeak, &row.RSSAvg, &row.RSSPeak, &row.Processes}[i] = r.Value
		}
	}
	if err := s.ownGenerator(ctx, prom, rows, window, to); err != nil {
		return nil, err
	}
	if err := s.ownTarget(ctx, prom, rows, window, to); err != nil {
		return nil, err
	}
	if s.OtherRuns, err = otherRuns(ctx, prom, runID, window, to, s.Queries); err != nil {
		return nil, err
	}
	for _, r := range rows {
		s.Resources = append(s.Resources, *r)
	}
	sort.Slice(s.Resources, func(i, j int) bool {
		a, b := s.Resources[i], s.Resources[j]
		if a.Role != b.Role {
			return roleOrder[a.Role] < roleOrder[b.Role]
		}
		return a.CPUAvg > b.CPUAvg
	})
	// How much of the window the resource figures rest on: samples of the
	// per-component rule over the samples a full window would have.
	// Prometheus' startup is left out: nothing could be measured before it.
	cov, err := prom.Instant(ctx, fmt.Sprintf(`max(count_over_time(imbench:component_memory_rss_bytes[%s]))`, window), to)
	if span := to.Sub(s.coveredFrom()).Seconds(); err == nil && len(cov) > 0 && span > 0 {
		s.Coverage = math.Min(1, cov[0].Value*5/span) // rules are evaluated every 5 s
	}
	s.Machine = machine(ctx, prom, to)
	s.BuildInfo = buildInfo(ctx, prom, to)
	return s, nil
}

// queryFill fills the dashboard's variables for the run, its target and
// its window.
func queryFill(runID, target string, from, to time.Time) (fill *strings.Replacer, window string) {
	window = fmt.Sprintf("%ds", int(math.Ceil(to.Sub(from).Seconds())))
	return strings.NewReplacer("$run_id", runID, "$target", regexp.QuoteMeta(target), "$instance", ".*", "$__range", window), window
}

// fetchCharts reads Prometheus' heartbeat and the report's charts over the
// window (what the live page refreshes), and returns the dashboard's panels
// by title for the rest of Fetch. A per-component chart draws the groups
// roles names (the target's, the generator, the stack) and names the rest.
func fetchCharts(ctx context.Context, prom Prom, runID, target string, from, to time.Time, roles map[string]string) (*Series, map[string]dashboards.Panel, error) {
	step := max(5, int(to.Sub(from).Seconds())/400)
	s := &Series{RunID: runID, Prometheus: prom.URL, From: from.UTC(), To: to.UTC(), StepSec: step,
		FetchedAt: time.Now().UTC(), Queries: map[string]string{}}
	fill, _ := queryFill(runID, target, from, to)
	panels := map[string]dashboards.Panel{}
	for _, p := range dashboards.Build()["im-benchmark.json"].Panels {
		panels[p.Title] = p
	}
	// Prometheus' own availability: count(up) has a point whenever it was
	// running and scraping. Where it has none, no chart can have data.
	lookback := time.Duration(2*step) * time.Second
	beat, err := prom.Range(ctx, "count(up)", from, to, step, lookback)
	if err != nil {
		return nil, nil, err
	}
	var beats []Line
	for _, r := range beat {
		beats = append(beats, Line{Points: r.Values})
	}
	s.Outages = outages(beats, from, to, step)
	if started, err := prom.Started(ctx); err == nil {
		s.PrometheusStarted = started
		if ts := stamps(beats); len(ts) > 0 {
			s.Startup = startupGap(from, started, unix(ts[0]))
			s.Outages = withoutStartup(s.Outages, s.Startup)
		}
	}
	if jobs := targetJobs[target]; jobs != "" {
		s.TargetJobs = jobs
		up, err := prom.Range(ctx, fmt.Sprintf(`count(up{job=~%q} == 1)`, jobs), from, to, step, lookback)
		if err != nil {
			return nil, nil, err
		}
		var lines []Line
		for _, r := range up {
			lines = append(lines, Line{Points: r.Values})
		}
		cut := append([]Gap(nil), s.Outages...)
		if s.Startup != nil {
			cut = append(cut, *s.Startup)
		}
		s.TargetGaps = without(outages(lines, from, to, step), cut)
	}
	for _, title := range chartPanels {
		p, ok := panels[title]
		if !ok {
			return nil, nil, fmt.Errorf("dashboard has no panel %q", title)
		}
		c := Chart{Title: title, Unit: p.FieldConfig["defaults"].(map[string]any)["unit"].(string)}
		for _, t := range p.Targets {
			expr := fill.Replace(t.Expr)
			res, err := prom.Range(ctx, expr, from, to, step, lookback)
			if err != nil {
				return nil, nil, err
			}
			for _, r := range res {
				c.Lines = append(c.Lines, Line{Name: legend(t.LegendFormat, r.Metric), Expr: expr, Points: r.Values})
			}
		}
		holes := gaps(c.Lines, step)
		c.Gaps = merge(append(holes, s.Outages...))
		if trafficOnly(p) {
			c.Gaps, c.Quiet = merge(s.Outages), quiet(holes, s.Outages)
		}
		s.Charts = append(s.Charts, c)
	}
	s.ownCharts(roles)

	return s, panels, nil
}

var roleOrder = map[string]int{"target": 0, "other": 1, "generator": 2, "observability": 3}

// Roles maps process groups to their role: the target's components (as
// its profile names them), the generator and the stack; a group it does
// not name is "other".
func Roles(components []Component) map[string]string {
	roles := map[string]string{profile.GeneratorGroup: "generator"}
	for _, g := range profile.StackGroups() {
		if g != profile.GeneratorGroup {
			roles[g] = "observability"
		}
	}
	for _, c := range components {
		roles[c.Group] = "target"
	}
	return roles
}

// ownCharts makes the per-component charts draw the groups roles names
// (the target's, the generator, the stack) in that order, naming the rest.
func (s *Series) ownCharts(roles map[string]string) {
	for i := range s.Charts {
		c := &s.Charts[i]
		if !strings.Contains(c.Title, "component") {
			continue
		}
		var others []string
		c.Lines, others = ownLines(c.Lines, roles)
		c.Others = slices.Compact(slices.Sorted(slices.Values(append(c.Others, others...))))
		sort.SliceStable(c.Lines, func(i, j int) bool {
			a, b := c.Lines[i], c.Lines[j]
			if ra, rb := roleOrder[roleOf(a.Name, roles)], roleOrder[roleOf(b.Name, roles)]; ra != rb {
				return ra < rb
			}
			return a.Name < b.Name
		})
	}
}

// ownLines keeps the lines of groups with a role; the others' names come
// back apart. Without roles every line is kept.
func ownLines(lines []Line, roles map[string]string) (kept []Line, others []string) {
	if len(roles) == 0 {
		return lines, nil
	}
	for _, l := range lines {
		if roleOf(l.Name, roles) == "other" {
			others = append(others, l.Name)
			continue
		}
		kept = append(kept, l)
	}
	sort.Strings(others)
	return kept, others
}

func roleOf(component string, roles map[string]string) string {
	if r, ok := roles[component]; ok {
		return r
	}
	return "other"
}

var legendVar = regexp.MustCompile(`\{\{\s*(\w+)\s*\}\}`)

func legend(format string, labels map[string]string) string {
	if format == "" {
		return "value"
	}
	return legendVar.ReplaceAllStringFunc(format, func(m string) string {
		return labels[legendVar.FindStringSubmatch(m)[1]]
	})
}

// trafficOnly reports a panel of latency quantiles: a rule over the rate
// of a histogram has no value while nothing is measured, so its holes are
// quiet stretches unless Prometheus itself was out.
func trafficOnly(p dashboards.Panel) bool {
	for _, t := range p.Targets {
		if !strings.Contains(t.Expr, "_latency_seconds:") {
			return false
		}
	}
	return len(p.Targets) > 0
}

// quiet are the holes that no outage of Prometheus overlaps.
func quiet(holes, outages []Gap) []Gap {
	var out []Gap
	for _, h := range holes {
		overlaps := false
		for _, o := range outages {
			overlaps = overlaps || (h.From.Before(o.To) && o.From.Before(h.To))
		}
		if !overlaps {
			out = append(out, h)
		}
	}
	return out
}

// holeLimit is the longest stretch between points that is not a hole: three
// steps. Charts are queried with a lookback of two steps (one missed scrape
// or rule evaluation is bridged), so an outage of more than about four
// steps (20 s at the usual 5 s step) shows.
func holeLimit(step int) float64 { return float64(3 * step) }

// gaps finds stretches of the window no line has points for: a Prometheus
// that was down, or scrapes that failed. The run's start and end are not
// holes: series begin when the runner first pushes.
func gaps(lines []Line, step int) []Gap { return holes(stamps(lines), step) }

// stamps are the times of every point of lines, sorted.
func stamps(lines []Line) []float64 {
	var ts []float64
	for _, l := range lines {
		for _, p := range l.Points {
			ts = append(ts, p[0])
		}
	}
	sort.Float64s(ts)
	return ts
}

// holes are the stretches between sorted times ts longer than holeLimit.
func holes(ts []float64, step int) []Gap {
	limit := holeLimit(step)
	var out []Gap
	for i := 1; i < len(ts); i++ {
		if ts[i]-ts[i-1] > limit {
			out = append(out, Gap{From: unix(ts[i-1]), To: unix(ts[i])})
		}
	}
	return out
}

// outages are the holes of Prometheus' heartbeat, its start and end
// included: it should have run over the whole window.
func outages(beat []Line, from, to time.Time, step int) []Gap {
	ts := stamps(beat)
	if len(ts) == 0 {
		return []Gap{{From: from.UTC(), To: to.UTC()}}
	}
	out := holes(ts, step)
	limit := holeLimit(step)
	if first := unix(ts[0]); first.Sub(from).Seconds() > limit {
		out = append(out, Gap{From: from.UTC(), To: first})
	}
	if last := unix(ts[len(ts)-1]); to.Sub(last).Seconds() > limit {
		out = append(out, Gap{From: last, To: to.UTC()})
	}
	return merge(out)
}

// targetJobs are each target's own scrape jobs (prometheus/prometheus.yml).
var targetJobs = map[string]string{"reference": "reference-target", "openim": "openim-.*", "wukongim": "wukongim", "wildfire": "wildfire"}

// without is gs less the stretches of cut (a hole of the target's series
// where Prometheus itself was down is that outage's, said once).
func without(gs, cut []Gap) []Gap {
	var out []Gap
	for _, g := range gs {
		parts := []Gap{g}
		for _, c := range cut {
			var next []Gap
			for _, p := range parts {
				if !c.From.Before(p.To) || !c.To.After(p.From) {
					next = append(next, p)
					continue
				}
				if c.From.After(p.From) {
					next = append(next, Gap{From: p.From, To: c.From})
				}
				if c.To.Before(p.To) {
					next = append(next, Gap{From: c.To, To: p.To})
				}
			}
			parts = next
		}
		for _, p := range parts {
			if p.To.Sub(p.From) >= 10*time.Second {
				out = append(out, p)
			}
		}
	}
	return out
}

// merge sorts gaps and joins the ones that overlap.
func merge(gs []Gap) []Gap {
	sort.Slice(gs, func(i, j int) bool { return gs[i].From.Before(gs[j].From) })
	var out []Gap
	for _, g := range gs {
		if n := len(out); n > 0 && !g.From.After(out[n-1].To) {
			if g.To.After(out[n-1].To) {
				out[n-1].To = g.To
			}
			continue
		}
		out = append(out, g)
	}
	return out
}

func unix(sec float64) time.Time {
	return time.Unix(0, int64(sec*1e9)).UTC()
}

func machine(ctx context.Context, prom Prom, at time.Time) Machine {
	var m Machine
	if r, err := prom.Instant(ctx, `node_uname_info`, at); err == nil && len(r) > 0 {
		m.Hostname, m.Kernel, m.Arch = r[0].Metric["nodename"], r[0].Metric["release"], r[0].Metric["machine"]
	}
	if r, err := prom.Instant(ctx, `count(node_cpu_seconds_total{mode="idle"})`, at); err == nil && len(r) > 0 {
		m.CPUs = int(r[0].Value)
	}
	if r, err := prom.Instant(ctx, `max(node_memory_MemTotal_bytes)`, at); err == nil && len(r) > 0 {
		m.Memory = r[0].Value
	}
	return m
}

func buildInfo(ctx context.Context, prom Prom, at time.Time) []BuildInfo {
	r, err := prom.Instant(ctx, `{__name__=~".+_build_info", version!=""}`, at)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []BuildInfo
	for _, x := range r {
		name := strings.TrimSuffix(x.Metric["__name__"], "_build_info")
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, BuildInfo{Name: name, Version: x.Metric["version"]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Save writes series.json into dir.
func (s *Series) Save(dir string) error {
	raw, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "series.json"), append(raw, '\n'), 0o644)
}

// LoadSeries reads series.json from dir; a missing file is (nil, nil).
func LoadSeries(dir string) (*Series, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "series.json"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s Series
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("series.json: %w", err)
	}
	return &s, nil
}
