package report

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/chartscale"
)

// HTML renders report.html: one file, its CSS inline and its charts inline
// SVG drawn here, so it renders offline and asks the network for nothing.
func (r *Report) HTML() ([]byte, error) {
	type chart struct {
		Title, Note string
		SVG         template.HTML
		Legend      []legendItem
	}
	data := struct {
		Title    string
		Sections []section
		Charts   []chart
		NoCharts string
	}{Title: r.title(), Sections: r.sections()}
	if r.Series == nil {
		data.NoCharts = "No Prometheus data for this run: no charts."
	} else {
		for _, c := range r.Series.Charts {
			svg, items := svgChart(c, r.Series.From, r.Series.To, r.Series.StepSec)
			ch := chart{Title: c.Title, SVG: template.HTML(svg), Legend: items, Note: chartNote(c, "No data.")}
			data.Charts = append(data.Charts, ch)
		}
	}
	var b bytes.Buffer
	err := page.Execute(&b, data)
	return b.Bytes(), err
}

var page = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;max-width:1100px;margin:2em auto;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #dde2ea;padding-bottom:.2em}
table{border-collapse:collapse;margin:.8em 0}td,th{border:1px solid #dde2ea;padding:.3em .7em;text-align:left;vertical-align:top}
th{background:#f3f5f9}td:not(:first-child){font-variant-numeric:tabular-nums}
figure{margin:1.2em 0}figcaption{font-weight:600;margin-bottom:.3em}.note{color:#a33;font-weight:normal}
.legend{display:flex;flex-wrap:wrap;gap:.3em 1.2em;font-size:12px;margin-top:.2em}.legend i{display:inline-block;width:10px;height:10px;margin-right:.35em}
svg text{font:11px system-ui,sans-serif}svg text:not([fill]){fill:#555}
</style></head><body>
<h1>{{.Title}}</h1>
{{range .Sections}}{{if .Title}}<h2>{{.Title}}</h2>{{end}}
{{range .Paras}}<p>{{.}}</p>{{end}}
{{range .Tables}}<table><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</tbody></table>{{end}}
{{end}}
<h2>Charts</h2>
{{if .NoCharts}}<p>{{.NoCharts}}</p>{{end}}
{{range .Charts}}<figure class="chart"><figcaption>{{.Title}}{{if .Note}} <span class="note">{{.Note}}</span>{{end}}</figcaption>
{{.SVG}}
<div class="legend">{{range .Legend}}<span><i style="background:{{.Color}}"></i>{{.Name}}</span>{{end}}</div></figure>
{{end}}
</body></html>
`))

type legendItem struct{ Name, Color string }

var palette = []string{"#3b75c4", "#e07b39", "#3a9b5c", "#c23c4a", "#7d5bbf", "#8c6d31", "#d45fa4", "#5c6a7a", "#1fa3a3", "#b5a21f",
	"#222222", "#8fb8ea", "#f0c419", "#7a1f2b", "#8bc34a", "#c5a3e6", "#1e5631", "#f4a582", "#1f2f6b", "#a0a0a0"}

// lineColor is the i-th line's colour: the palette's, then hues a golden
// angle apart, so that no two lines of a chart share one.
func lineColor(i int) string {
	if i < len(palette) {
		return palette[i]
	}
	return hslHex(math.Mod(float64(i-len(palette))*137.508+15, 360), 0.6, 0.42)
}

// hslHex is the colour of hue h (degrees), saturation s and lightness l as
// #rrggbb: a form html/template lets into a style attribute.
func hslHex(h, s, l float64) string {
	c := (1 - math.Abs(2*l-1)) * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := l - c/2
	var r, g, b float64
	switch {
	case h < 60:
		r, g = c, x
	case h < 120:
		r, g = x, c
	case h < 180:
		g, b = c, x
	case h < 240:
		g, b = x, c
	case h < 300:
		r, b = x, c
	default:
		r, b = c, x
	}
	to := func(v float64) int { return int(math.Round((v + m) * 255)) }
	return fmt.Sprintf("#%02x%02x%02x", to(r), to(g), to(b))
}

// chartNote is what a chart's caption adds: no data (as empty says),
// holes, and the host's other processes it leaves out.
func chartNote(c Chart, empty string) string {
	var notes []string
	switch {
	case !c.HasData():
		notes = append(notes, empty)
	case !c.Complete():
		notes = append(notes, "Incomplete: "+gapsText(c.Gaps)+".")
	}
	if c.HasData() && len(c.Quiet) > 0 {
		notes = append(notes, "Nothing to measure (no traffic): "+quietText(c.Quiet)+".")
	}
	if len(c.Others) > 0 {
		notes = append(notes, "Not drawn: other processes on this host ("+strings.Join(c.Others, ", ")+").")
	}
	return strings.Join(notes, " ")
}

const (
	svgW, svgH             = 1000, 260
	padL, padR, padT, padB = 70, 12, 10, 28
	plotW, plotH           = svgW - padL - padR, svgH - padT - padB
)

// svgChart draws one chart; a line breaks where its data has a hole, and
// the holes of the chart are shaded and labelled, never bridged.
func svgChart(c Chart, from, to time.Time, step int) (string, []legendItem) {
	var b strings.Builder
	points := 0
	for _, l := range c.Lines {
		points += len(l.Points)
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="100%%" role="img" data-points="%d" aria-label="%s">`,
		svgW, svgH, points, html.EscapeString(c.Title))
	t0, t1 := float64(from.UnixNano())/1e9, float64(to.UnixNano())/1e9
	ymax := 0.0
	for _, l := range c.Lines {
		for _, p := range l.Points {
			ymax = math.Max(ymax, p[1])
		}
	}
	ymax = chartscale.NiceCeil(ymax)
	x := func(t float64) float64 { return padL + (t-t0)/(t1-t0)*plotW }
	y := func(v float64) float64 { return padT + plotH - v/ymax*plotH }
	// grid and axes
	for i := 0; i <= 4; i++ {
		v := ymax * float64(i) / 4
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e8ebf0"/>`, padL, svgW-padR, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`, padL-6, y(v)+4, html.EscapeString(axisValue(v, c.Unit)))
	}
	for i := 0; i <= 5; i++ {
		t := t0 + (t1-t0)*float64(i)/5
		anchor := map[int]string{0: "start", 5: "end"}[i]
		if anchor == "" {
			anchor = "middle"
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="%s">%s</text>`, x(t), svgH-8, anchor,
			time.Unix(int64(t), 0).UTC().Format("15:04:05"))
	}
	for _, g := range c.Gaps {
		gx0, gx1 := x(float64(g.From.UnixNano())/1e9), x(float64(g.To.UnixNano())/1e9)
		fmt.Fprintf(&b, `<rect class="gap" x="%.1f" y="%d" width="%.1f" height="%d" fill="#f6d9dc"/><text x="%.1f" y="%d" text-anchor="middle" fill="#a33">no data</text>`,
			gx0, padT, gx1-gx0, plotH, (gx0+gx1)/2, padT+14)
	}
	if points == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" font-size="14">no data</text>`, padL+plotW/2, padT+plotH/2)
	}
	limit := holeLimit(step)
	var items []legendItem
	for i, l := range c.Lines {
		color := lineColor(i)
		items = append(items, legendItem{Name: l.Name, Color: color})
		pts := append([][2]float64(nil), l.Points...)
		sort.Slice(pts, func(a, b int) bool { return pts[a][0] < pts[b][0] })
		var seg []string
		flush := func() {
			if len(seg) == 1 { // a lone point still shows
				seg = append(seg, seg[0])
			}
			if len(seg) > 0 {
				fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.6" points="%s"/>`, color, strings.Join(seg, " "))
			}
			seg = seg[:0]
		}
		for j, p := range pts {
			if j > 0 && p[0]-pts[j-1][0] > limit {
				flush()
			}
			seg = append(seg, fmt.Sprintf("%.1f,%.1f", x(p[0]), y(p[1])))
		}
		flush()
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#9aa3b0"/></svg>`, padL, svgW-padR, padT+plotH, padT+plotH)
	return b.String(), items
}

// axisValue labels a y tick in the chart's Grafana unit.
func axisValue(v float64, unit string) string {
	switch unit {
	case "s":
		if v < 1 {
			return dec(v*1000, 0) + " ms"
		}
		return dec(v, 2) + " s"
	case "bytes":
		return bytesText(v)
	case "percent":
		return dec(v, 0) + " %"
	case "percentunit":
		return dec(v*100, 0) + " %"
	}
	if v >= 1000 {
		return num(math.Round(v))
	}
	return strings.TrimSuffix(strings.TrimRight(dec(v, 2), "0"), ".")
}
