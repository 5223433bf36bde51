package limit

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/imbench/imbench/internal/chartscale"
)

// HTML is limit.html: the result, the knee chart (latency against
// throughput, one point a step, the limit and the knee marked), the CPU
// of the server's parts and the generator against the load, and the step
// table. One file, no scripts, no network.
func HTML(r Result) []byte {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>imbench limit ` + html.EscapeString(r.SearchID) + `</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#1d2330}table{border-collapse:collapse;font-size:12px}
td,th{border:1px solid #d5dae3;padding:3px 6px;text-align:right;vertical-align:top}th{background:#f1f4f8;text-align:center}td.text{text-align:left}
td:not(.text){white-space:nowrap}.charts{display:grid;grid-template-columns:1fr 1fr;gap:16px}svg text{font-size:11px}svg text:not([fill]){fill:#444}
svg text.label{paint-order:stroke;stroke:#fff;stroke-width:3px}</style></head><body>`)
	fmt.Fprintf(&b, "<h1>imbench limit search %s</h1>\n<p>%s on %s: %s rising from %s by ×%g to a resolution of %g %%; objective <code>%s</code>.</p>\n",
		html.EscapeString(r.SearchID), html.EscapeString(r.Scenario), html.EscapeString(r.Target), r.Params.Dimension,
		LoadText(r.Params.Start, r.Params.Dimension), r.Params.Factor, r.Params.Resolution*100, html.EscapeString(r.Objective))
	if r.BeforeStep != "" {
		fmt.Fprintf(&b, "<p>Before each step: <code>%s</code>.</p>\n", html.EscapeString(r.BeforeStep))
	}
	fmt.Fprintf(&b, "<p><b>Result.</b> %s.</p>\n", html.EscapeString(ResultLine(r)))
	b.WriteString(`<div class="charts"><figure><figcaption>Latency against the load each step put out, a point a step (the limit and the knee marked)</figcaption>`)
	b.WriteString(kneeChart(r))
	b.WriteString(`</figure><figure><figcaption>CPU per step, in % of one core: the server's parts and the generator</figcaption>`)
	b.WriteString(cpuChart(r))
	b.WriteString("</figure></div>\n<h2>Steps</h2>\n")
	b.WriteString(tableHTML(r))
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

const (
	cw, ch             = 520, 300
	cpl, cpr, cpt, cpb = 64, 20, 16, 40
)

func sortedSteps(r Result) []Step {
	s := append([]Step(nil), r.Steps...)
	sort.Slice(s, func(i, j int) bool { return s[i].Asked < s[j].Asked || s[i].Asked == s[j].Asked && s[i].N < s[j].N })
	return s
}

// measure is what the knee chart draws: the latency the objective names
// (e2e p99 where it names none) against the messages a second each step
// sent (the load it put out, beside the load asked) or the users online,
// or, where the objective is on the answer time or no step owed a
// delivery (a send-only scenario), against acknowledged messages a second.
type measure struct {
	x              func(Step) float64
	main, second   func(Step) float64
	mainName, name string // "e2e p99", "ack avg"; e2e, ack
	xLabel         string
	objective      string // the objective's bound drawn: e2e_p99, ack_avg, …
}

func measureOf(r Result) measure {
	dim := r.Params.Dimension
	owed := dim == "users"
	for _, s := range r.Steps {
		owed = owed || s.Expected > 0
	}
	lat := latencyNamed(r.Objective)
	kind := "e2e"
	switch {
	case dim == "users" && (lat == "" || strings.HasPrefix(lat, "login_")):
		kind = "login" // a users search on its own objective: the logins' time
	case !owed || strings.HasPrefix(lat, "ack_"):
		kind = "ack"
	}
	if !strings.HasPrefix(lat, kind+"_") {
		lat = kind + "_p99"
	}
	second := kind + "_p50"
	if lat == second {
		second = kind + "_p99"
	}
	m := measure{main: figure(lat), second: figure(second), mainName: strings.Replace(lat, "_", " ", 1), name: kind, objective: lat}
	switch {
	case dim == "users":
		m.x, m.xLabel = func(s Step) float64 { return float64(s.Online) }, xLabel(dim)
	case kind == "ack":
		m.x, m.xLabel = func(s Step) float64 { return s.Acked }, "acknowledged msg/s"
	default:
		m.x, m.xLabel = func(s Step) float64 { return s.Achieved }, xLabel(dim)
	}
	return m
}

// figure reads a latency off a step: what the objective kept of it, or
// the step's own columns (a limit.json of before objective_figures).
func figure(name string) func(Step) float64 {
	return func(s Step) float64 {
		if v, ok := s.Figures[name]; ok {
			return v
		}
		return map[string]float64{"e2e_p50": s.E2EP50, "e2e_p99": s.E2EP99, "ack_avg": s.AckAvg, "ack_p50": s.AckP50, "ack_p99": s.AckP99,
			"login_p50": s.LoginP50, "login_p99": s.LoginP99}[name]
	}
}

// counted are the steps the line joins: one a load asked, the last run of
// it not disturbed (a re-run or a confirmation replaces the run before);
// the others are drawn as open circles.
func counted(steps []Step) map[int]bool {
	last := map[float64]Step{}
	for _, s := range steps {
		better := func(l Step) bool {
			if (l.Disturbed == "") != (s.Disturbed == "") {
				return s.Disturbed == ""
			}
			return s.N > l.N
		}
		if l, ok := last[s.Asked]; !ok || better(l) {
			last[s.Asked] = s
		}
	}
	c := map[int]bool{}
	for _, s := range last {
		c[s.N] = s.Disturbed == "" // a load only disturbed runs met is not drawn as measured
	}
	return c
}

func kneeChart(r Result) string {
	steps := sortedSteps(r)
	dim := r.Params.Dimension
	m := measureOf(r)
	line := counted(steps)
	bound := objectiveLine(r.Objective, m.objective)
	xmax, ymax, heldMax := 0.0, 0.0, 0.0
	for _, s := range steps {
		xmax = math.Max(xmax, m.x(s))
		ymax = math.Max(ymax, math.Max(m.main(s), m.second(s)))
		if s.Held {
			heldMax = math.Max(heldMax, m.main(s))
		}
	}
	// One step far above the rest would flatten them all: the axis stops
	// at twice the objective's bound (three times the highest that held
	// where the objective states none) and a step above it is drawn at
	// the top, its figure written beside it.
	if ceiling := math.Max(2*bound, 3*heldMax); ceiling > 0 && ymax > ceiling {
		ymax = ceiling
	}
	if bound > 0 && bound < 2*ymax {
		ymax = math.Max(ymax, bound) // the bound in sight where the steps come near it
	}
	xs, xmax := chartscale.Ticks(xmax)
	// A figure over clip was cut by the ceiling and is written out; one
	// just over the top tick (Ticks leaves 1 %) is drawn at the top.
	clip := ymax
	ys, ymax := chartscale.Ticks(ymax)
	clip = math.Max(clip, ymax)
	x := func(v float64) float64 { return cpl + v/xmax*(cw-cpl-cpr) }
	y := func(v float64) float64 { return cpt + (1-math.Min(v, ymax)/ymax)*(ch-cpt-cpb) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="knee" data-points="%d" data-measure="%s" data-line="%s" data-xmax="%g" data-ymax="%g">`,
		cw, ch, len(steps), m.name, m.objective, xmax, ymax)
	axes(&b, xs, xmax, ys, ymax, x, y, "ms", m.xLabel)
	if bound > 0 && bound <= ymax {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#c0392b" stroke-dasharray="4 3"/><text x="%d" y="%.1f" class="label" fill="#c0392b">objective %s ms</text>`,
			cpl, cw-cpr, y(bound), y(bound), cpl+6, y(bound)-4, num(bound))
	}
	for _, series := range []struct {
		color string
		v     func(Step) float64
		name  string
	}{{"#1f6feb", m.main, m.mainName}, {"#8a63d2", m.second, secondOf(m)}} {
		// In the order of the load put out, which a step asking more
		// may have put out less of: the line never doubles back.
		var drawn []Step
		for _, s := range steps {
			if line[s.N] {
				drawn = append(drawn, s)
			}
		}
		sort.SliceStable(drawn, func(i, j int) bool { return m.x(drawn[i]) < m.x(drawn[j]) })
		var pts []string
		for _, s := range drawn {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(m.x(s)), y(series.v(s))))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"><title>%s</title></polyline>`, series.color, strings.Join(pts, " "), series.name)
	}
	var clipped []float64 // the x of each clipped label written
	type marked struct {
		s      Step
		mark   string
		px, py float64
	}
	var marks []marked
	for _, s := range steps {
		color := "#2e7d32"
		if !s.Held {
			color = "#c0392b"
		}
		fill, what := color, ""
		switch {
		case s.Disturbed != "":
			fill, what = "#fff", " (not the server's: run again)"
		case !line[s.N]:
			fill, what = "#fff", " (run again: not counted)"
		}
		px, py := x(m.x(s)), y(m.main(s))
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="%s" stroke-width="1.5"><title>step %d%s: %s asked, %s %s, %s %s ms</title></circle>`,
			px, py, fill, color, s.N, what, LoadText(s.Asked, dim), m.xLabel, num(m.x(s)), m.mainName, num(m.main(s)))
		if m.main(s) > clip {
			// Inside the plot, and a row lower than a clipped label close
			// beside it (two steps over the top side by side).
			lx, anchor := px, "middle"
			switch {
			case px > cw-cpr-30:
				lx, anchor = float64(cw-cpr), "end"
			case px < cpl+30:
				lx, anchor = cpl, "start"
			}
			row := 0
			for _, c := range clipped {
				if math.Abs(c-lx) < 60 {
					row++
				}
			}
			clipped = append(clipped, lx)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="%s" class="label" data-clipped="%d">▲ %s</text>`, lx, py+16+12*float64(row), anchor, s.N, tick(m.main(s), "ms"))
		}
		if mark := map[int]string{r.LimitStep: "limit", r.KneeStep: "knee"}[s.N]; mark != "" && s.N != 0 {
			marks = append(marks, marked{s, mark, px, py})
		}
	}
	// The limit's and the knee's labels, once every clipped figure is
	// written: beside their points, the limit's to the left and the knee's
	// to the right; they say the load asked, the axis the load put out.
	for _, mk := range marks {
		dx, anchor := 8.0, "start"
		if mk.mark == "limit" && mk.px > cpl+140 || mk.px > cw-cpr-140 {
			dx, anchor = -8, "end"
		}
		// The knee's above its point, the limit's below it: the two are
		// often close, and side by side their labels would overlap. A
		// point at the top has its label below, under the figures written
		// there.
		dy := -8.0
		if mk.mark == "limit" && mk.py < ch-cpb-24 {
			dy = 16
		}
		if mk.py < cpt+20 {
			dy = 16
			for _, c := range clipped {
				if math.Abs(c-mk.px) < 60 {
					dy += 12
				}
			}
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="%s" class="label" data-mark="%s">%s: %s asked</text>`, mk.px+dx, mk.py+dy, anchor, mk.mark, mk.mark, html.EscapeString(LoadText(mk.s.Asked, dim)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#1f6feb">%s</text><text x="%d" y="%d" fill="#8a63d2">%s</text></svg>`, cpl+8, cpt+12, m.mainName, cpl+72, cpt+12, secondOf(m))
	return b.String()
}

// secondOf names the knee chart's second line.
func secondOf(m measure) string {
	if m.objective == m.name+"_p50" {
		return m.name + " p99"
	}
	return m.name + " p50"
}

func cpuChart(r Result) string {
	steps := sortedSteps(r)
	dim := r.Params.Dimension
	lines := map[string][][2]float64{}
	for _, s := range steps {
		for _, u := range s.Usage {
			if u.Role == "target" {
				lines[u.Component] = append(lines[u.Component], [2]float64{s.Asked, u.CPUAvg})
			}
		}
		lines["imbench (generator)"] = append(lines["imbench (generator)"], [2]float64{s.Asked, 100 * s.GeneratorCores})
	}
	xmax, ymax := 0.0, 0.0
	for _, pts := range lines {
		for _, p := range pts {
			xmax, ymax = math.Max(xmax, p[0]), math.Max(ymax, p[1])
		}
	}
	xs, xmax := chartscale.Ticks(xmax)
	ys, ymax := chartscale.Ticks(ymax)
	x := func(v float64) float64 { return cpl + v/xmax*(cw-cpl-cpr) }
	y := func(v float64) float64 { return cpt + (1-v/ymax)*(ch-cpt-cpb) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="cpu" data-lines="%d" data-xmax="%g" data-ymax="%g">`, cw, ch, len(lines), xmax, ymax)
	axes(&b, xs, xmax, ys, ymax, x, y, "%", "load asked ("+map[string]string{"rate": "msg/s", "users": "users"}[dim]+")")
	names := make([]string, 0, len(lines))
	for n := range lines {
		names = append(names, n)
	}
	sort.Strings(names)
	palette := []string{"#1f6feb", "#d97706", "#2e7d32", "#8a63d2", "#c0392b", "#0e7490", "#a16207", "#be185d", "#4b5563"}
	for i, n := range names {
		color := palette[i%len(palette)]
		var pts []string
		for _, p := range lines[n] {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p[0]), y(p[1])))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"><title>%s</title></polyline>`, color, strings.Join(pts, " "), html.EscapeString(n))
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">%s</text>`, cpl+8, cpt+14+14*i, color, html.EscapeString(n))
	}
	b.WriteString("</svg>")
	return b.String()
}

// axes draws the grid and the ticks, every step to the top of each axis,
// each label whole (tick).
func axes(b *strings.Builder, xs, xmax, ys, ymax float64, x, y func(float64) float64, yunit, xname string) {
	for v := 0.0; v <= ymax+ys/2; v += ys {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e8ebf0"/><text x="%d" y="%.1f" text-anchor="end" data-tick="y">%s</text>`,
			cpl, cw-cpr, y(v), y(v), cpl-4, y(v)+4, tick(v, yunit))
	}
	for v := 0.0; v <= xmax+xs/2; v += xs {
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" data-tick="x">%s</text>`, x(v), ch-cpb+16, tick(v, ""))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`, (cw+cpl)/2, ch-6, html.EscapeString(xname))
}

// tick is an axis label short enough for the margin: milliseconds of a
// second or more in seconds, thousands as k, millions as M.
func tick(v float64, unit string) string {
	switch {
	case unit == "ms" && v >= 1000:
		return short(v/1000) + " s"
	case unit != "":
		return short(v) + " " + unit
	}
	return short(v)
}

// short is a figure for a chart's label: to two decimals below 10 (a
// measured 5.1363829999999995 s reads 5.14 s), whole above, k and M
// beyond.
func short(v float64) string {
	switch {
	case v < 10 && v != math.Trunc(v):
		return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	case v >= 1e6:
		return strconv.FormatFloat(math.Round(v/1e4)/100, 'f', -1, 64) + "M"
	case v >= 1e4:
		return strconv.FormatFloat(math.Round(v/1e2)/10, 'f', -1, 64) + "k"
	}
	return num(v)
}

func xLabel(dim string) string {
	if dim == "users" {
		return "users online"
	}
	return "msg/s sent"
}

// objectiveLine is the objective's upper bound of name (e2e_p99,
// ack_p99), to draw on the chart.
func objectiveLine(obj, name string) float64 {
	for _, part := range strings.Split(obj, ",") {
		m := condRE.FindStringSubmatch(part)
		if m != nil && m[1] == name && strings.HasPrefix(m[2], "<") {
			var v float64
			fmt.Sscan(m[3], &v)
			return v
		}
	}
	return 0
}

// textColumn are the step table's columns of words, set flush left.
var textColumn = map[string]bool{"asked": true, "objective": true, "decided by": true}

func tableHTML(r Result) string {
	md := Table(r)
	var b strings.Builder
	b.WriteString("<table>")
	var head []string
	for i, line := range strings.Split(strings.TrimSpace(md), "\n") {
		if i == 0 {
			head = strings.Split(strings.Trim(line, "| "), " | ")
		}
		if i == 1 {
			continue // the markdown separator
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		tag := "td"
		if i == 0 {
			tag = "th"
		}
		b.WriteString("<tr>")
		for j, c := range cells {
			class := ""
			if tag == "td" && (j == 0 || textColumn[head[min(j, len(head)-1)]]) {
				class = ` class="text"`
			}
			fmt.Fprintf(&b, "<%s%s>%s</%s>", tag, class, html.EscapeString(c), tag)
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

// Latency is the step's latency figure name (e2e_p99, ack_avg, …), in ms.
func (s Step) Latency(name string) float64 { return figure(name)(s) }

// ObjectiveLatency is the latency the objective names first (e2e_p99 where
// it names none): what a chart of latency against load draws.
func ObjectiveLatency(objective string) string {
	if l := latencyNamed(objective); l != "" {
		return l
	}
	return "e2e_p99"
}

// ObjectiveBound is the objective's upper bound on a latency (name, in
// ms), 0 where it sets none.
func ObjectiveBound(objective, name string) float64 { return objectiveLine(objective, name) }
