package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

// The report's content, shared by report.md and report.html.

type table struct {
	Head []string
	Rows [][]string
}

type section struct {
	Title  string
	Paras  []string
	Tables []table
}

func (r *Report) title() string {
	s := r.Summary
	return fmt.Sprintf("imbench report: %s on %s, run %s", s.Scenario, s.Target, s.RunID)
}

func (r *Report) sections() []section {
	s := r.Summary
	var out []section
	dur := s.EndedAt.Sub(s.StartedAt).Round(time.Second)
	intro := section{Paras: []string{
		fmt.Sprintf("Run %s of scenario %s against %s (%s), from %s to %s UTC (%s).", s.RunID, s.Scenario, s.Target,
			s.TargetAPI, s.StartedAt.Format("2006-01-02 15:04:05"), s.EndedAt.Format("15:04:05"), dur),
	}}
	out = append(out, intro)
	if len(s.Warnings) > 0 {
		out = append(out, section{Title: "Warnings", Paras: s.Warnings})
	}
	out = append(out, section{Title: "Results", Tables: []table{r.resultsTable()}})
	if sec, ok := r.thresholdsSection(); ok {
		out = append(out, sec)
	}
	if st := r.Summary.SeedTable(); st != nil {
		t := table{Head: []string{"", ""}}
		for _, row := range st.Rows {
			t.Rows = append(t.Rows, []string{row[0], strings.Replace(row[1], "report.md's resource table", "the resource table below", 1)})
		}
		out = append(out, section{Title: st.Title, Tables: []table{t}})
	}
	out = append(out, section{Title: "Latency (ms)", Tables: []table{latencyTable(s)}})
	if sec, ok := r.outagesSection(); ok {
		out = append(out, sec)
	}
	out = append(out, r.resourceSections()...)
	if sec, ok := generatorProcesses(s); ok {
		out = append(out, sec)
	}
	out = append(out, r.machineSection())
	out = append(out, r.sourcesSection())
	return out
}

func (r *Report) resultsTable() table {
	s := r.Summary
	u, m, d := s.Users, s.Messages, s.Deliveries
	t := table{Head: []string{"Parameter/Result", "Description"}}
	add := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	if s.Purpose != "" {
		add("Test Purpose", s.Purpose)
	}
	add("Stress Load", fmt.Sprintf("%s users online at peak, %s msg/s sent on average (peak %s msg/s)",
		num(float64(u.OnlinePeak)), dec(m.AvgPerSecond, 1), num(float64(m.PeakPerSecond))))
	add("User Count", fmt.Sprintf("%s users, %s logged in at once%s, %s logged in later",
		num(float64(u.Registered)), num(float64(u.Logins-u.LateLogins-u.TimedLogins)), summary.TimedText(u), num(float64(u.LateLogins))))
	add("Group Count & Size", groupsText(s.Groups))
	add("Message Rate", fmt.Sprintf("Peak %s msg/s, average %s msg/s (%s)",
		num(float64(m.PeakPerSecond)), dec(m.AvgPerSecond, 1), summary.PlannedText(m)+summary.PaceText(m)))
	add("Total Messages", fmt.Sprintf("%s sent (%s acknowledged, %s failed)%s; %s deliveries: %s pushed, %s pulled",
		num(float64(m.Sent)), num(float64(m.Acked)), num(float64(m.SendFailed)), summary.UnansweredText(m, d)+summary.UnsentText(m), num(float64(d.Received)),
		num(float64(d.Pushed)), num(float64(d.ByPull))))
	if t := summary.UnansweredRow(m, d); t != "" {
		add("Unanswered Sends", t)
	}
	add("Message Integrity", integrity(s))
	add("Duplicates / Out of Order", duplicatesText(d))
	if t := summary.OrderText(d.ByClass); t != "" {
		add("Order by pacing", t)
	}
	if t := summary.PopulationsText(d.ByPopulation); t != "" {
		add("By population", t)
	}
	if r := d.Rooms; r != nil {
		add("Chatrooms", fmt.Sprintf("%s; %s sent before a member joined", summary.RoomsText(r), num(float64(r.BeforeJoin))))
	}
	add("Average Latency", fmt.Sprintf("%s seconds", dec(s.Latency.E2E.Avg/1000, 3)))
	add("Maximum Latency", fmt.Sprintf("%s seconds", dec(s.Latency.E2E.Max/1000, 3)))
	add("Connections", summary.ConnectionsText(u, func(v int64, _ int) string { return num(float64(v)) }))
	add("Login Failures", loginFailuresText(s))
	if s.Logins != nil {
		add("Login Cost", summary.LoginText(s.Logins))
	}
	add("Client Requests", clientRequests(s))
	return t
}

// clientRequests is what the generator asked of the server besides sending
// and acknowledging: it is part of the server's cost.
func clientRequests(s summary.Summary) string {
	g, users := s.Generator, max(s.Users.Registered, 1)
	return fmt.Sprintf("%s pulls (%s a user; %s for a missing seq), %s heartbeats (%s skipped: the connection had written), besides sends and acknowledgements",
		num(float64(g.PullRequests)), dec(float64(g.PullRequests)/float64(users), 2), num(float64(g.GapPullRequests)),
		num(float64(g.HeartbeatsSent)), num(float64(g.HeartbeatsSkipped)))
}

// integrity is the seed's wording, or the exact shortfall.
func integrity(s summary.Summary) string {
	d := s.Deliveries
	switch {
	case d.Expected == 0:
		return summary.IntegrityText(s)
	case d.Undelivered() == 0 && d.Corrupted == 0:
		return "100 % (all messages delivered)"
	}
	return fmt.Sprintf("%s %% (%s, %s corrupted)", dec(s.Integrity*100, 4),
		summary.LossText(d, func(v int64, _ int) string { return num(float64(v)) }), num(float64(d.Corrupted)))
}

func groupsText(g summary.GroupsSummary) string {
	type size struct{ members, n int }
	var sizes []size
	for k, n := range g.BySize {
		m, _ := strconv.Atoi(k)
		sizes = append(sizes, size{m, n})
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i].members > sizes[j].members })
	var parts []string
	for _, x := range sizes {
		parts = append(parts, fmt.Sprintf("%s of %s members", num(float64(x.n)), num(float64(x.members))))
	}
	return summary.GroupsText(g.Count, parts, g.Friendships)
}

func latencyTable(s summary.Summary) table {
	t := table{Head: []string{"", "avg", "p50", "p95", "p99", "max", "count"}}
	for _, l := range []struct {
		name string
		v    summary.LatencySummary
	}{{"End-to-end (create → received)", s.Latency.E2E}, {"Send → acknowledgement", s.Latency.Ack}} {
		t.Rows = append(t.Rows, []string{l.name, dec(l.v.Avg, 1), dec(l.v.P50, 1), dec(l.v.P95, 1), dec(l.v.P99, 1),
			dec(l.v.Max, 1), num(float64(l.v.Count))})
	}
	return t
}

func (r *Report) machineSection() section {
	sec := section{Title: "Machine and versions"}
	t := table{Head: []string{"What", "Which"}}
	if r.Series != nil && r.Series.Machine.CPUs > 0 {
		m := r.Series.Machine
		t.Rows = append(t.Rows, []string{"Host", fmt.Sprintf("%s, Linux %s %s, %d CPUs, %s memory", m.Hostname, m.Kernel,
			m.Arch, m.CPUs, bytesText(m.Memory))})
	}
	target := r.Summary.Target
	if r.Target != "" {
		target += " (" + r.Target + ")"
	}
	t.Rows = append(t.Rows, []string{"Target", target + " at " + r.Summary.TargetAPI})
	var keys []string
	for k := range r.Summary.Versions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Rows = append(t.Rows, []string{k, r.Summary.Versions[k]})
	}
	if r.Series != nil {
		for _, b := range r.Series.BuildInfo {
			t.Rows = append(t.Rows, []string{b.Name, b.Version})
		}
	}
	sec.Tables = append(sec.Tables, t)
	return sec
}

func (r *Report) sourcesSection() section {
	sec := section{Title: "Sources"}
	sec.Paras = append(sec.Paras, "Results and latency: summary.json of the run, counted by imbench's verifier.")
	if r.Series != nil {
		sec.Paras = append(sec.Paras, fmt.Sprintf("Resources and charts: Prometheus %s over %s – %s UTC; the queries and "+
			"the series they returned are in series.json.", r.Series.Prometheus,
			r.Series.From.Format("2006-01-02 15:04:05"), r.Series.To.Format("15:04:05")))
		if note := r.Series.startupNote(); note != "" {
			sec.Paras = append(sec.Paras, note)
		}
		if len(r.Series.Outages) > 0 {
			sec.Paras = append(sec.Paras, "Prometheus itself has no data ("+gapsText(r.Series.Outages)+
				"): it was down or not yet started, and every chart is incomplete there.")
		}
		if t := r.Series.targetGapsText(); t != "" {
			sec.Paras = append(sec.Paras, t)
		}
		for _, c := range r.Series.Charts {
			switch {
			case !c.HasData():
				sec.Paras = append(sec.Paras, fmt.Sprintf("Chart %q: no data.", c.Title))
			case !c.Complete():
				sec.Paras = append(sec.Paras, fmt.Sprintf("Chart %q is incomplete: %s.", c.Title, gapsText(c.Gaps)))
			}
		}
	}
	return sec
}

// quietText names a latency chart's stretches without traffic.
func quietText(gs []Gap) string {
	var parts []string
	for _, g := range gs {
		parts = append(parts, fmt.Sprintf("from %s to %s", g.From.Format("15:04:05"), g.To.Format("15:04:05")))
	}
	return strings.Join(parts, ", ")
}

func gapsText(gs []Gap) string {
	var parts []string
	for _, g := range gs {
		parts = append(parts, fmt.Sprintf("no data from %s to %s", g.From.Format("15:04:05"), g.To.Format("15:04:05")))
	}
	return strings.Join(parts, ", ")
}

// Formatting.

func num(v float64) string {
	if v != math.Trunc(v) {
		return dec(v, 1)
	}
	s := strconv.FormatInt(int64(v), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func dec(v float64, places int) string { return strconv.FormatFloat(v, 'f', places, 64) }

func pct(v float64) string {
	if v >= 10 || v == 0 {
		return dec(v, 0) + " %"
	}
	return dec(v, 1) + " %"
}

func bytesText(b float64) string {
	switch {
	case b >= 1<<30:
		return dec(b/(1<<30), 2) + " GiB"
	case b >= 1<<20:
		return dec(b/(1<<20), 0) + " MiB"
	case b >= 1<<10:
		return dec(b/(1<<10), 0) + " KiB"
	}
	return dec(b, 0) + " B"
}

// thresholdsSection is the scenario's thresholds as the run checked them,
// each with ✓ or ✗ as the terminal printed them.
func (r *Report) thresholdsSection() (section, bool) {
	if len(r.Thresholds) == 0 {
		return section{}, false
	}
	t := table{Head: []string{"", "Threshold", "The run's figure"}}
	crossed := 0
	for _, th := range r.Thresholds {
		mark, actual := "✓", strconv.FormatFloat(th.Actual, 'f', -1, 64)
		if !th.Passed {
			mark = "✗"
			crossed++
		}
		if th.Absent {
			actual = "no samples"
		}
		t.Rows = append(t.Rows, []string{mark, th.Metric + " " + th.Expr, actual})
	}
	verdict := fmt.Sprintf("All %d thresholds held.", len(r.Thresholds))
	if crossed > 0 {
		verdict = fmt.Sprintf("%d of %d thresholds crossed: the run failed (exit 99).", crossed, len(r.Thresholds))
	}
	return section{Title: "Thresholds", Paras: []string{verdict}, Tables: []table{t}}, true
}

// targetGapsText flags the stretches where Prometheus ran but scraped none
// of the target's own jobs: its own series are missing there.
func (s *Series) targetGapsText() string {
	if len(s.TargetGaps) == 0 {
		return ""
	}
	var missing time.Duration
	for _, g := range s.TargetGaps {
		missing += g.To.Sub(g.From)
	}
	return fmt.Sprintf("The target's own series are missing (%s): Prometheus ran, but no scrape job of the target's (job=~%q) was up, "+
		"%s of the run in all; the server's own figures do not cover it. Its scrape targets were not configured then "+
		"(make up TARGET=… with the run's variables), or the server's metrics endpoints did not answer.",
		gapsText(s.TargetGaps), s.TargetJobs, missing.Round(time.Second))
}

// generatorProcesses is a row per process of the generator, one a segment
// of a split run: where it ran, the CPU it used of the cores it could, and
// how far a CPU quota held it back.
func generatorProcesses(s summary.Summary) (section, bool) {
	ps := s.Generator.Processes
	if len(ps) == 0 {
		return section{}, false
	}
	secs := s.EndedAt.Sub(s.StartedAt).Seconds()
	t := table{Head: []string{"Segment", "Host", "CPU seconds", "Cores used (avg)", "Cores it could use", "Quota throttled"}}
	for _, p := range ps {
		used, throttled := "", "no quota"
		if secs > 0 {
			used = dec(p.CPUSeconds/secs, 2)
		}
		if p.QuotaCores > 0 {
			throttled = dec(100*p.Throttled, 0) + " % of periods"
		}
		t.Rows = append(t.Rows, []string{p.Segment, p.Host, dec(p.CPUSeconds, 1), used, dec(p.Cores, 2) + " (" + p.Bound + ")", throttled})
	}
	sec := section{Title: "Generator processes", Tables: []table{t}}
	if q := summary.QuotaText(s.Generator); q != "" {
		sec.Paras = []string{q + "."}
	}
	return sec, true
}
