package report

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/imbench/imbench/internal/chartscale"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/limit"
)

// comparisonRows are the table's rows: a name and each server's cell.
func comparisonRows(c Comparison) [][]string {
	var rows [][]string
	row := func(name string, cell func(ServerColumn) string) {
		r := []string{name}
		for _, s := range c.Servers {
			r = append(r, cell(s))
		}
		rows = append(rows, r)
	}
	count := func(v int64) string { return summary.Grouped(v) }
	ms := func(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }
	row("target (protocol)", func(s ServerColumn) string { return s.Target + " (" + s.Protocol + ")" })
	row("server version", func(s ServerColumn) string {
		if s.ServerVersion == "" {
			return "not given (the servers file's version)"
		}
		return s.ServerVersion
	})
	row("generator versions", func(s ServerColumn) string { return versionsText(s.Versions) })
	row("cores (allowed)", func(s ServerColumn) string {
		if s.CPUs > 0 {
			return fmt.Sprintf("%d (%d)", s.Cores, s.CPUs)
		}
		return strconv.Itoa(s.Cores)
	})
	row("verdict", func(s ServerColumn) string { return s.Verdict })
	row("integrity", func(s ServerColumn) string {
		if s.Integrity == nil {
			return "none owed"
		}
		return strconv.FormatFloat(*s.Integrity*100, 'f', -1, 64) + " %"
	})
	row("expected / received", func(s ServerColumn) string { return count(s.Expected) + " / " + count(s.Received) })
	row("lost (never stored)", func(s ServerColumn) string { return fmt.Sprintf("%s (%s)", count(s.Lost), count(s.LostNeverStored)) })
	row("late / unchecked", func(s ServerColumn) string { return count(s.Late) + " / " + count(s.Unchecked) })
	row("unanswered sends", func(s ServerColumn) string { return count(s.Unanswered) })
	row("duplicates / out of order", func(s ServerColumn) string { return count(s.Duplicates) + " / " + count(s.OutOfOrder) })
	row("sent (msg/s on average)", func(s ServerColumn) string { return count(s.Sent) + " (" + ms(s.SentPerSecond) + ")" })
	row("e2e p50 / p95 / p99 ms", func(s ServerColumn) string { return ms(s.E2E.P50) + " / " + ms(s.E2E.P95) + " / " + ms(s.E2E.P99) })
	row("ack p50 / p95 / p99 ms", func(s ServerColumn) string { return ms(s.Ack.P50) + " / " + ms(s.Ack.P95) + " / " + ms(s.Ack.P99) })
	row("time to online p50 / p99 ms", func(s ServerColumn) string { return ms(s.Login.P50) + " / " + ms(s.Login.P99) })
	row("requests per login", func(s ServerColumn) string { return ms(s.LoginRequests) })
	for _, comp := range components(c) {
		row("CPU s per 1,000 deliveries: "+comp, func(s ServerColumn) string { return cpuCell(s.CPUPerKDeliveries, comp, 4) })
	}
	row("CPU ms per message sent", func(s ServerColumn) string { return cpuCell(s.CPUPerMessage, "total", 3) })
	row("memory per online user", func(s ServerColumn) string {
		if s.MemoryPerUser == 0 {
			return "not measured"
		}
		return ms(s.MemoryPerUser/1024) + " KiB (" + count(s.OnlinePeak) + " online)"
	})
	row("limit / knee", limitCell)
	row("gave out first", func(s ServerColumn) string { return orDash(s.GaveOut) })
	row("cannot carry", func(s ServerColumn) string { return orDash(strings.Join(s.Cannot, "; ")) })
	row("left on the server", func(s ServerColumn) string { return orNone(strings.Join(s.Left, "; ")) })
	return rows
}

func cpuCell(m map[string]float64, k string, digits int) string {
	v, ok := m[k]
	if !ok {
		return "not measured"
	}
	return strconv.FormatFloat(v, 'g', digits, 64)
}

func versionsText(v map[string]string) string {
	var parts []string
	for k, x := range v {
		parts = append(parts, k+" "+x)
	}
	sort.Strings(parts)
	return orDash(strings.Join(parts, ", "))
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// ComparisonMarkdown is comparison.md.
func ComparisonMarkdown(c Comparison) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# imbench: %s on %d servers (%s)\n\n", c.Scenario, len(c.Servers), c.ID)
	fmt.Fprintf(&b, "The same workload on each server in turn, alone on the machine: a run at a fixed load (%s), every delivery verified, then a limit search with one objective for all (`%s`).\n\n", c.Load, c.Objective)
	rows := comparisonRows(c)
	b.WriteString("| |")
	for _, s := range c.Servers {
		b.WriteString(" " + s.Name + " |")
	}
	b.WriteString("\n|---|")
	for range c.Servers {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(escapeCells(r), " | ") + " |\n")
	}
	b.WriteString("\n## What differs\n\n")
	for _, f := range c.Fairness {
		b.WriteString("- " + f + "\n")
	}
	b.WriteString("\n## Sources\n\n")
	for _, s := range c.Servers {
		fmt.Fprintf(&b, "- %s: run `results/%s/summary.json`", s.Name, s.RunID)
		if s.LimitID != "" {
			fmt.Fprintf(&b, ", search `results/%s/limit.json` (%s)", s.LimitID, s.LimitLine)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func escapeCells(r []string) []string {
	out := make([]string, len(r))
	for i, c := range r {
		out[i] = strings.ReplaceAll(c, "|", "\\|")
	}
	return out
}

var serverColors = []string{"#1f6feb", "#d97706", "#2e7d32", "#8a63d2", "#c0392b", "#0e7490"}

// ComparisonHTML is comparison.html: the table, latency against load for
// every server on one chart, and CPU per 1,000 deliveries by part as bars.
func ComparisonHTML(c Comparison) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>imbench comparison ` + html.EscapeString(c.ID) + `</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#1d2330}table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #d5dae3;padding:3px 8px;vertical-align:top}th{background:#f1f4f8}td:first-child{font-weight:600}
.charts{display:grid;grid-template-columns:1fr 1fr;gap:16px}svg text{font-size:11px;fill:#444}</style></head><body>`)
	fmt.Fprintf(&b, "<h1>imbench: %s on %d servers</h1>\n<p>Comparison %s. The same workload on each server in turn, alone on the machine: a run at a fixed load (%s), every delivery verified, then a limit search with one objective for all (<code>%s</code>).</p>\n",
		html.EscapeString(c.Scenario), len(c.Servers), html.EscapeString(c.ID), html.EscapeString(c.Load), html.EscapeString(c.Objective))
	b.WriteString("<table><tr><th></th>")
	for _, s := range c.Servers {
		b.WriteString("<th>" + html.EscapeString(s.Name) + "</th>")
	}
	b.WriteString("</tr>\n")
	for _, r := range comparisonRows(c) {
		b.WriteString("<tr>")
		for _, cell := range r {
			b.WriteString("<td>" + html.EscapeString(cell) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	caption := strings.Replace(c.Latency, "_", " ", 1) + " against the messages a second each step sent, every server's search"
	if top, clipped := latencyTop(c); clipped {
		caption += fmt.Sprintf("; the axis stops at %s ms (twice the objective): a step above it is drawn at the top, ▲ its figure", summary.Grouped(int64(top)))
	}
	b.WriteString("</table>\n<div class=\"charts\"><figure><figcaption>" + html.EscapeString(caption) + "</figcaption>")
	b.WriteString(latencyChart(c))
	b.WriteString("</figure><figure><figcaption>CPU of the server's parts at the fixed load, seconds of one core per 1,000 verified deliveries</figcaption>")
	b.WriteString(cpuBars(c))
	b.WriteString("</figure></div>\n<h2>What differs</h2><ul>")
	for _, f := range c.Fairness {
		b.WriteString("<li>" + html.EscapeString(f) + "</li>")
	}
	b.WriteString("</ul><h2>Sources</h2><ul>")
	for _, s := range c.Servers {
		b.WriteString("<li>" + html.EscapeString(s.Name) + `: <a href="../` + html.EscapeString(s.RunID) + `/report.html">run ` + html.EscapeString(s.RunID) + "</a>")
		if s.LimitID != "" {
			b.WriteString(`, <a href="../` + html.EscapeString(s.LimitID) + `/limit.html">search ` + html.EscapeString(s.LimitID) + "</a>: " + html.EscapeString(s.LimitLine))
		}
		b.WriteString("</li>")
	}
	b.WriteString("</ul></body></html>\n")
	return b.String()
}

const (
	scw, sch             = 520, 300
	spl, spr, spt, spb   = 64, 20, 16, 40
	legendStep, legendX0 = 14, spl + 8
)

// latencyTop is where the latency chart's axis stops, and whether a step
// lies above it: a broken step far above the bound would flatten the rest,
// so the axis stops at twice the bound, a step above it drawn at the top.
func latencyTop(c Comparison) (float64, bool) {
	ymax := 0.0
	for _, s := range c.Servers {
		for _, p := range s.Steps {
			ymax = math.Max(ymax, p.Latency)
		}
	}
	if bound := limit.ObjectiveBound(c.Objective, c.Latency); bound > 0 && ymax > 2*bound {
		return 2 * bound, true
	}
	return ymax, false
}

func latencyChart(c Comparison) string {
	xmax := 0.0
	for _, s := range c.Servers {
		for _, p := range s.Steps {
			xmax = math.Max(xmax, p.Sent)
		}
	}
	bound := limit.ObjectiveBound(c.Objective, c.Latency)
	ymax, clipped := latencyTop(c)
	ys, ymax := chartscale.Ticks(ymax)
	top := spt + legendStep*len(c.Servers)
	y := func(v float64) float64 { return float64(top) + (1-math.Min(v, ymax)/ymax)*float64(sch-top-spb) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="latency against load" data-servers="%d">`, scw, sch, len(c.Servers))
	x := loadAxis(&b, c, xmax)
	grid(&b, ys, ymax, y, "ms", "msg/s sent")
	if bound > 0 && bound <= ymax {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#c0392b" stroke-dasharray="4 3"/><text x="%d" y="%.1f" style="fill:#c0392b">objective %s ms</text>`,
			spl, scw-spr, y(bound), y(bound), scw-spr-110, y(bound)-4, strconv.FormatFloat(bound, 'f', -1, 64))
	}
	for i, s := range c.Servers {
		color := serverColors[i%len(serverColors)]
		pts := append([]LimitPoint(nil), s.Steps...)
		sort.Slice(pts, func(a, b int) bool { return pts[a].Sent < pts[b].Sent })
		var line []string
		for _, p := range pts {
			line = append(line, fmt.Sprintf("%.1f,%.1f", x(p.Sent), y(p.Latency)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"><title>%s</title></polyline>`, color, strings.Join(line, " "), html.EscapeString(s.Name))
		for _, p := range pts {
			sent, lat := strconv.FormatFloat(math.Round(p.Sent), 'f', -1, 64), strconv.FormatFloat(math.Round(p.Latency*10)/10, 'f', -1, 64)
			switch {
			case p.FellShort: // met the objective, not its load: neither held nor broken by latency
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="7" height="7" fill="#fff" stroke="%s" data-short="1"><title>%s: %s msg/s sent, %s ms: met the objective, but sent less than asked</title></rect>`,
					x(p.Sent)-3.5, y(p.Latency)-3.5, color, html.EscapeString(s.Name), sent, lat)
			default:
				fill, what := color, "held"
				if !p.Held {
					fill, what = "#fff", "broke the objective"
				}
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s" stroke="%s"><title>%s: %s msg/s sent, %s ms (%s)</title></circle>`,
					x(p.Sent), y(p.Latency), fill, color, html.EscapeString(s.Name), sent, lat, what)
			}
			if p.Latency > ymax {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="%s" class="label" data-clipped="1" style="fill:%s">▲ %s ms</text>`,
					math.Min(x(p.Sent), float64(scw-spr)), y(p.Latency)+14+11*float64(i), map[bool]string{true: "end", false: "middle"}[x(p.Sent) > float64(scw-spr-30)], color, summary.Grouped(int64(math.Round(p.Latency))))
			}
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" style="fill:%s">%s</text>`, legendX0, spt+legendStep*i, color, html.EscapeString(s.Name))
	}
	if clipped { // the caption says so in words
		fmt.Fprintf(&b, `<desc data-clip="%g">the axis stops at %s ms</desc>`, ymax, summary.Grouped(int64(ymax)))
	}
	b.WriteString("</svg>")
	return b.String()
}

func cpuBars(c Comparison) string {
	comps := components(c)
	ymax := 0.0
	for _, s := range c.Servers {
		for _, k := range comps {
			ymax = math.Max(ymax, s.CPUPerKDeliveries[k])
		}
	}
	ys, ymax := chartscale.Ticks(ymax)
	top := spt + legendStep*len(c.Servers)
	const labels = 80 // the parts' names, slanted below the bars
	y := func(v float64) float64 { return float64(top) + (1-v/ymax)*float64(sch-top-spb) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="CPU per delivery" data-bars="%d">`, scw, sch+labels, len(comps)*len(c.Servers))
	for v := 0.0; v <= ymax+ys/2; v += ys {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e8ebf0"/><text x="%d" y="%.1f" text-anchor="end">%s s</text>`,
			spl, scw-spr, y(v), y(v), spl-4, y(v)+4, strconv.FormatFloat(v, 'g', 3, 64))
	}
	slot := float64(scw-spl-spr) / float64(len(comps))
	bar := slot * 0.8 / float64(max(1, len(c.Servers)))
	for ci, k := range comps {
		x0 := float64(spl) + slot*float64(ci) + slot*0.1
		for si, s := range c.Servers {
			v := s.CPUPerKDeliveries[k]
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s, %s: %s s</title></rect>`,
				x0+bar*float64(si), y(v), bar-1, y(0)-y(v), serverColors[si%len(serverColors)], html.EscapeString(s.Name), html.EscapeString(k), strconv.FormatFloat(v, 'g', 4, 64))
		}
		fmt.Fprintf(&b, `<text transform="translate(%.1f %d) rotate(-40)" text-anchor="end">%s</text>`, x0+slot*0.4, sch-spb+12, html.EscapeString(k))
	}
	for si, s := range c.Servers {
		fmt.Fprintf(&b, `<text x="%d" y="%d" style="fill:%s">%s</text>`, legendX0, spt+legendStep*si, serverColors[si%len(serverColors)], html.EscapeString(s.Name))
	}
	b.WriteString("</svg>")
	return b.String()
}

// loadAxis draws the load axis's ticks and returns its scale: linear from
// 0, or logarithmic where the servers' loads span more than ten times
// (a server of 150 msg/s beside one of 2,000 would be a dot at the left).
func loadAxis(b *strings.Builder, c Comparison, xmax float64) func(float64) float64 {
	xmin := math.Inf(1)
	for _, s := range c.Servers {
		for _, p := range s.Steps {
			if p.Sent > 0 {
				xmin = math.Min(xmin, p.Sent)
			}
		}
	}
	width := float64(scw - spl - spr)
	if xmax <= 0 || xmin*10 >= xmax {
		xs, top := chartscale.Ticks(xmax)
		x := func(v float64) float64 { return spl + v/top*width }
		for v := 0.0; v <= top+xs/2; v += xs {
			fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, x(v), sch-spb+16, strconv.FormatFloat(v, 'g', 4, 64))
		}
		return x
	}
	// The axis runs between ticks of 1, 2 and 5 times a power of ten: from
	// the largest at or below the least load to the smallest at or above
	// the most.
	var ticks []float64
	for k := math.Floor(math.Log10(xmin)); k <= math.Ceil(math.Log10(xmax)); k++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, k)
			switch {
			case v <= xmin:
				ticks = ticks[:0]
				ticks = append(ticks, v)
			case len(ticks) == 0 || ticks[len(ticks)-1] < xmax:
				ticks = append(ticks, v)
			}
		}
	}
	lo, hi := ticks[0], ticks[len(ticks)-1]
	x := func(v float64) float64 { return spl + math.Log10(math.Max(v, lo)/lo)/math.Log10(hi/lo)*width }
	for _, v := range ticks {
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, x(v), sch-spb+16, strconv.FormatFloat(v, 'f', -1, 64))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d">log scale</text>`, scw-spr-60, sch-6)
	return x
}

// grid draws the value axis's lines and ticks and names the load axis
// (loadAxis draws its ticks).
func grid(b *strings.Builder, ys, ymax float64, y func(float64) float64, yunit, xname string) {
	for v := 0.0; v <= ymax+ys/2; v += ys {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e8ebf0"/><text x="%d" y="%.1f" text-anchor="end">%s %s</text>`,
			spl, scw-spr, y(v), y(v), spl-4, y(v)+4, strconv.FormatFloat(v, 'g', 4, 64), yunit)
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`, (scw+spl)/2, sch-6, html.EscapeString(xname))
}

// limitCell is a server's limit and knee as numbers, with what decided
// them: confirmed or not, the generator's stop, a busy machine's.
func limitCell(s ServerColumn) string {
	rate := func(v float64) string { return limit.LoadText(v, "rate") }
	if s.LimitID == "" {
		return "not searched"
	}
	if s.Undetermined {
		held := "none held"
		if s.HighestHeld > 0 {
			held = rate(s.HighestHeld) + " held"
		}
		return "undetermined on this machine (" + held + ", but other processes kept taking the cores above it)"
	}
	limitText := "none held"
	if s.Limit > 0 {
		limitText = rate(s.Limit)
		if s.Confirmed {
			limitText += " (held again)"
		}
	}
	knee := "none broke"
	if s.Knee > 0 {
		knee = rate(s.Knee)
		if s.KneeConfirmed {
			knee += " (broke twice)"
		}
		if strings.HasPrefix(s.KneeEvidence, "repeated") {
			knee += ", its break repeated while other processes ran"
		}
	}
	cell := limitText + " / " + knee
	if s.Generator {
		cell += "; the generator stopped the search above it (its limit, not the server's)"
	}
	return cell
}
