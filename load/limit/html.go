package limit

import (
	"fmt"
	"github.com/imbench/imbench/internal/chartscale"
	"html"
	"math"
	"sort"
	"strings"
)

// HTML is limit.html: the result, the knee chart (latency against
// throughput, one point a step, the limit and the knee marked), the CPU
// of the server's parts and the generator against the load, and the step
// table. One file, no scripts, no network.
func HTML(r Result) []byte {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>imbench limit ` + html.EscapeString(r.SearchID) + `</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#1d2330}table{border-collapse:collapse;font-size:12px}
td,th{border:1px solid #d5dae3;padding:3px 6px;text-align:right}th{background:#f1f4f8}td:first-child,td:nth-child(10){text-align:left}
.charts{display:grid;grid-template-columns:1fr 1fr;gap:16px}svg text{font-size:11px}svg text:not([fill]){fill:#444}</style></head><body>`)
	fmt.Fprintf(&b, "<h1>imbench limit search %s</h1>\n<p>%s on %s: %s rising from %s by ×%g to a resolution of %g %%; objective <code>%s</code>.</p>\n",
		html.EscapeString(r.SearchID), html.EscapeString(r.Scenario), html.EscapeString(r.Target), r.Params.Dimension,
		LoadText(r.Params.Start, r.Params.Dimension), r.Params.Factor, r.Params.Resolution*100, html.EscapeString(r.Objective))
	fmt.Fprintf(&b, "<p><b>Result.</b> %s.</p>\n", html.EscapeString(ResultLine(r)))
	b.WriteString(`<div class="charts"><figure><figcaption>Latency against throughput, a point a step (the limit and the knee marked)</figcaption>`)
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
	cpl, cpr, cpt, cpb = 56, 16, 12, 36
)

func sortedSteps(r Result) []Step {
	s := append([]Step(nil), r.Steps...)
	sort.Slice(s, func(i, j int) bool { return s[i].Asked < s[j].Asked })
	return s
}

// measure is what the knee chart draws: e2e latency against verified
// deliveries a second (or users online), or, where no step owed a
// delivery (a send-only scenario), the answer time against acknowledged
// messages a second.
type measure struct {
	x         func(Step) float64
	p99, p50  func(Step) float64
	xLabel    string
	name      string // e2e, ack
	objective string // the objective's bound drawn: e2e_p99, ack_p99
}

func measureOf(r Result) measure {
	dim := r.Params.Dimension
	owed := dim == "users"
	for _, s := range r.Steps {
		owed = owed || s.Expected > 0
	}
	if !owed {
		return measure{x: func(s Step) float64 { return s.Acked }, p99: func(s Step) float64 { return s.AckP99 },
			p50: func(s Step) float64 { return s.AckP50 }, xLabel: "acknowledged msg/s", name: "ack", objective: "ack_p99"}
	}
	m := measure{p99: func(s Step) float64 { return s.E2EP99 }, p50: func(s Step) float64 { return s.E2EP50 },
		xLabel: xLabel(dim), name: "e2e", objective: "e2e_p99"}
	if dim == "users" {
		m.x = func(s Step) float64 { return float64(s.Online) }
	} else {
		m.x = func(s Step) float64 { return s.Deliveries }
	}
	return m
}

func kneeChart(r Result) string {
	steps := sortedSteps(r)
	dim := r.Params.Dimension
	m := measureOf(r)
	xmax, ymax := 0.0, 0.0
	for _, s := range steps {
		xmax = math.Max(xmax, m.x(s))
		ymax = math.Max(ymax, m.p99(s))
	}
	xmax, ymax = chartscale.NiceCeil(xmax), chartscale.NiceCeil(ymax)
	x := func(v float64) float64 { return cpl + v/xmax*(cw-cpl-cpr) }
	y := func(v float64) float64 { return cpt + (1-v/ymax)*(ch-cpt-cpb) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="knee" data-points="%d" data-measure="%s">`, cw, ch, len(steps), m.name)
	axes(&b, xmax, ymax, x, y, "ms", m.xLabel)
	if obj := objectiveLine(r.Objective, m.objective); obj > 0 && obj <= ymax {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#c0392b" stroke-dasharray="4 3"/><text x="%d" y="%.1f" text-anchor="end" fill="#c0392b">objective %s ms</text>`,
			cpl, cw-cpr, y(obj), y(obj), cw-cpr, y(obj)-4, num(obj))
	}
	for _, series := range []struct {
		color string
		v     func(Step) float64
		name  string
	}{{"#1f6feb", m.p99, m.name + " p99"}, {"#8a63d2", m.p50, m.name + " p50"}} {
		var pts []string
		for _, s := range steps {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(m.x(s)), y(series.v(s))))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"><title>%s</title></polyline>`, series.color, strings.Join(pts, " "), series.name)
	}
	for _, s := range steps {
		color := "#2e7d32"
		if !s.Held {
			color = "#c0392b"
		}
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>step %d: %s, %s %s, %s p99 %s ms</title></circle>`,
			x(m.x(s)), y(m.p99(s)), color, s.N, LoadText(s.Asked, dim), m.xLabel, num(m.x(s)), m.name, num(m.p99(s)))
		switch s.N {
		case r.LimitStep:
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" data-mark="limit">limit</text>`, x(m.x(s)), y(m.p99(s))-9)
		case r.KneeStep:
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" data-mark="knee">knee</text>`, x(m.x(s)), y(m.p99(s))-9)
		}
	}
	fmt.Fprintf(&b, `<text x="60" y="24" fill="#1f6feb">%s p99</text><text x="120" y="24" fill="#8a63d2">%s p50</text></svg>`, m.name, m.name)
	return b.String()
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
	xmax, ymax = chartscale.NiceCeil(xmax), chartscale.NiceCeil(ymax)
	x := func(v float64) float64 { return cpl + v/xmax*(cw-cpl-cpr) }
	y := func(v float64) float64 { return cpt + (1-v/ymax)*(ch-cpt-cpb) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="cpu" data-lines="%d">`, cw, ch, len(lines))
	axes(&b, xmax, ymax, x, y, "%", "load asked ("+map[string]string{"rate": "msg/s", "users": "users"}[dim]+")")
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

func axes(b *strings.Builder, xmax, ymax float64, x, y func(float64) float64, yunit, xname string) {
	for i := 0; i <= 4; i++ {
		v := ymax * float64(i) / 4
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e8ebf0"/><text x="%d" y="%.1f" text-anchor="end">%s %s</text>`,
			cpl, cw-cpr, y(v), y(v), cpl-4, y(v)+4, num(v), yunit)
		xv := xmax * float64(i) / 4
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, x(xv), ch-cpb+14, num(xv))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`, (cw+cpl)/2, ch-4, html.EscapeString(xname))
}

func xLabel(dim string) string {
	if dim == "users" {
		return "users online"
	}
	return "verified deliveries/s"
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

func tableHTML(r Result) string {
	md := Table(r)
	var b strings.Builder
	b.WriteString("<table>")
	for i, line := range strings.Split(strings.TrimSpace(md), "\n") {
		if i == 1 {
			continue // the markdown separator
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		tag := "td"
		if i == 0 {
			tag = "th"
		}
		b.WriteString("<tr>")
		for _, c := range cells {
			fmt.Fprintf(&b, "<%s>%s</%s>", tag, html.EscapeString(c), tag)
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	return b.String()
}
