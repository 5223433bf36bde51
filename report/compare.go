package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/imbench/imbench/internal/summary"
)

// A compared figure: which way is worse, and how large a change must be to
// count, both relative (the threshold) and absolute (the floor: runs on a
// shared machine jitter by a few milliseconds and percent of a core).
type metric struct {
	name  string
	unit  string
	worse int     // +1: higher is worse, -1: lower is worse, 0: informational
	floor float64 // absolute change below which nothing is flagged
	// integrity: a count of what did not arrive whole; any rise beyond the
	// tolerance is flagged, whatever the relative change.
	integrity bool
	get       func(*Report) (float64, bool)
}

func fromSummary(f func(summary.Summary) float64) func(*Report) (float64, bool) {
	return func(r *Report) (float64, bool) { return f(r.Summary), true }
}

func component(name string, cpu bool) func(*Report) (float64, bool) {
	return func(r *Report) (float64, bool) {
		if r.Series == nil {
			return 0, false
		}
		for _, x := range r.Series.Resources {
			if x.Component == name {
				if cpu {
					return x.CPUAvg, true
				}
				return x.RSSPeak, true
			}
		}
		return 0, false
	}
}

// informational shows a figure without gating on it: a run's maximum is a
// single sample, one scheduling hiccup away from any value.
func informational(m metric) metric {
	m.worse = 0
	return m
}

func metrics(a, b *Report) []metric {
	lat := func(name string, e2e bool, pick func(summary.LatencySummary) float64, floor float64) metric {
		return metric{name: name, unit: "ms", worse: +1, floor: floor, get: fromSummary(func(s summary.Summary) float64 {
			if e2e {
				return pick(s.Latency.E2E)
			}
			return pick(s.Latency.Ack)
		})}
	}
	count := func(name string, f func(summary.Summary) int64) metric {
		return metric{name: name, worse: +1, integrity: true, get: fromSummary(func(s summary.Summary) float64 { return float64(f(s)) })}
	}
	ms := []metric{
		{name: "Messages sent", get: fromSummary(func(s summary.Summary) float64 { return float64(s.Messages.Sent) })},
		{name: "Peak msg/s", worse: -1, floor: 2, get: fromSummary(func(s summary.Summary) float64 { return float64(s.Messages.PeakPerSecond) })},
		{name: "Average msg/s", worse: -1, floor: 1, get: fromSummary(func(s summary.Summary) float64 { return s.Messages.AvgPerSecond })},
		count("Send failures", func(s summary.Summary) int64 { return s.Messages.SendFailed }),
		count("Sends unanswered", func(s summary.Summary) int64 { return s.Messages.Unanswered }),
		{name: "Deliveries expected", get: fromSummary(func(s summary.Summary) float64 { return float64(s.Deliveries.Expected) })},
		{name: "Deliveries received", get: fromSummary(func(s summary.Summary) float64 { return float64(s.Deliveries.Received) })},
		{name: "Integrity", unit: "%", worse: -1, floor: 0.00005, get: func(r *Report) (float64, bool) {
			return r.Summary.Integrity * 100, r.Summary.Deliveries.Expected > 0 // none owed: no integrity to compare
		}},
		count("Lost", func(s summary.Summary) int64 { return s.Deliveries.Lost }),
		count("Lost, never stored", func(s summary.Summary) int64 { return s.Deliveries.LostNeverStored }),
		count("Late", func(s summary.Summary) int64 { return s.Deliveries.Late }),
		count("Unchecked", func(s summary.Summary) int64 { return s.Deliveries.Unchecked }),
		count("Duplicates", func(s summary.Summary) int64 { return s.Deliveries.Duplicates }),
		count("Out of order", func(s summary.Summary) int64 { return s.Deliveries.OutOfOrder }),
		count("Corrupted", func(s summary.Summary) int64 { return s.Deliveries.Corrupted }),
		count("Login failures", func(s summary.Summary) int64 { return s.Users.LoginFailures.Total() }),
		count("Never online", func(s summary.Summary) int64 { return s.Users.NeverOnline }),
		lat("E2E latency avg", true, func(l summary.LatencySummary) float64 { return l.Avg }, 5),
		lat("E2E latency p50", true, func(l summary.LatencySummary) float64 { return l.P50 }, 5),
		lat("E2E latency p95", true, func(l summary.LatencySummary) float64 { return l.P95 }, 20),
		lat("E2E latency p99", true, func(l summary.LatencySummary) float64 { return l.P99 }, 20),
		informational(lat("E2E latency max", true, func(l summary.LatencySummary) float64 { return l.Max }, 0)),
		lat("Ack latency avg", false, func(l summary.LatencySummary) float64 { return l.Avg }, 5),
		lat("Ack latency p50", false, func(l summary.LatencySummary) float64 { return l.P50 }, 5),
		lat("Ack latency p99", false, func(l summary.LatencySummary) float64 { return l.P99 }, 20),
		informational(lat("Ack latency max", false, func(l summary.LatencySummary) float64 { return l.Max }, 0)),
		{name: "Connect errors", worse: +1, get: fromSummary(func(s summary.Summary) float64 { return float64(s.Users.ConnectErrors) })},
		{name: "Disconnects", worse: +1, get: fromSummary(func(s summary.Summary) float64 { return float64(s.Users.Disconnects) })},
		// What the client asked of the server besides its sends and acks.
		{name: "Client pulls", get: fromSummary(func(s summary.Summary) float64 { return float64(s.Generator.PullRequests) })},
		{name: "Client heartbeats", get: fromSummary(func(s summary.Summary) float64 { return float64(s.Generator.HeartbeatsSent) })},
	}
	// Per component, where both runs have resource figures.
	seen := map[string]bool{}
	for _, r := range []*Report{a, b} {
		if r.Series == nil {
			continue
		}
		for _, x := range r.Series.Resources {
			if seen[x.Component] {
				continue
			}
			seen[x.Component] = true
			ms = append(ms,
				metric{name: x.Component + " CPU avg", unit: "% of a core", worse: +1, floor: 10, get: component(x.Component, true)},
				metric{name: x.Component + " memory peak", unit: "MiB", worse: +1, floor: 64, get: func(r *Report) (float64, bool) {
					v, ok := component(x.Component, false)(r)
					return v / (1 << 20), ok
				}})
		}
	}
	return ms
}

// Row is one compared figure.
type Row struct {
	Name    string
	Unit    string
	A, B    float64
	HasA    bool
	HasB    bool
	Change  float64 // relative, (B−A)/A; NaN when A is 0
	Flagged bool    // worse beyond the threshold and the floor, or the tolerance
	// Integrity: a count of what did not arrive whole, flagged on any rise
	// beyond the tolerance.
	Integrity bool
}

// Compare lines two runs up. A latency, rate or cost is flagged when worse
// by more than threshold (relative: 0.1 = 10 %) and its noise floor; an
// integrity count (lost, late, unanswered, duplicates, login failures, …)
// when B has more than tolerance more of it than A: more loss is never
// noise.
func Compare(a, b *Report, threshold float64, tolerance int64) []Row {
	var rows []Row
	for _, m := range metrics(a, b) {
		va, okA := m.get(a)
		vb, okB := m.get(b)
		row := Row{Name: m.name, Unit: m.unit, A: va, B: vb, HasA: okA, HasB: okB, Change: math.NaN(), Integrity: m.integrity}
		if okA && okB {
			if va != 0 {
				row.Change = (vb - va) / math.Abs(va)
			}
			diff := (vb - va) * float64(m.worse)
			relWorse := va == 0 || diff/math.Abs(va) > threshold
			row.Flagged = m.worse != 0 && diff > m.floor && relWorse
			if m.integrity {
				row.Flagged = vb-va > float64(tolerance)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// CompareMarkdown renders the comparison as a table.
func CompareMarkdown(a, b *Report, rows []Row, threshold float64, tolerance int64) string {
	var s strings.Builder
	fmt.Fprintf(&s, "# imbench compare: %s vs %s\n\n", a.Summary.RunID, b.Summary.RunID)
	fmt.Fprintf(&s, "A: %s on %s (%s). B: %s on %s (%s). Flagged: an integrity count (†) higher in B by more than %s; "+
		"any other figure worse by more than %s %% and more than its noise floor.\n\n", a.Summary.Scenario, a.Summary.Target,
		a.Summary.StartedAt.Format("2006-01-02 15:04"), b.Summary.Scenario, b.Summary.Target, b.Summary.StartedAt.Format("2006-01-02 15:04"),
		num(float64(tolerance)), dec(threshold*100, 0))
	s.WriteString("| Figure | A | B | Change | |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		val := func(v float64, ok bool) string {
			if !ok {
				return "–"
			}
			out := dec(v, 3)
			if v == math.Trunc(v) && math.Abs(v) < 1e15 {
				out = num(v)
			}
			if r.Unit != "" {
				out += " " + r.Unit
			}
			return out
		}
		change := "–"
		if !math.IsNaN(r.Change) {
			change = fmt.Sprintf("%+.1f %%", r.Change*100)
		} else if r.HasA && r.HasB && r.A != r.B {
			change = "new"
		}
		flag := ""
		if r.Flagged {
			flag = "**worse**"
		}
		name := r.Name
		if r.Integrity {
			name += " †"
		}
		fmt.Fprintf(&s, "| %s | %s | %s | %s | %s |\n", name, val(r.A, r.HasA), val(r.B, r.HasB), change, flag)
	}
	return s.String()
}
