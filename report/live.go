package report

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"time"

	"github.com/imbench/imbench/dashboards"
)

// LiveOptions say which run a live page shows, and how.
type LiveOptions struct {
	Prom   Prom
	RunID  string
	Target string // the run's target profile, the dashboard's $target
	// SearchID is the limit search the run is a step of (its figures too).
	SearchID string
	About    string        // what runs against what, e.g. "openim/test1 on reference"
	From     time.Time     // when the run started
	Every    time.Duration // how often the page reloads its data
	// Components are the target's process groups: the page says which no
	// process matched so far.
	Components []Component
}

// LivePage renders a running run's page as of now: report.html's page with
// its charts (over the run so far, the dashboard's queries) and the
// dashboard's stat panels as figures, plus an inline script that swaps in a
// fresh copy every o.Every and stops once the server is gone. A Prometheus
// that does not answer shows as a note on the page, not as an error.
func LivePage(ctx context.Context, o LiveOptions, now time.Time) ([]byte, error) {
	intro := fmt.Sprintf("Live view of run %s, %s: data as of %s UTC from Prometheus %s, refreshed every %g s. "+
		"These are the IM benchmark dashboard's panels with its queries; the run's report is written when it ends.",
		o.RunID, o.About, now.UTC().Format("15:04:05"), o.Prom.URL, o.Every.Seconds())
	data := struct {
		Title    string
		Sections []section
		Charts   []liveChart
		NoCharts string
	}{Title: fmt.Sprintf("imbench live: %s, run %s", o.About, o.RunID), Sections: []section{{Paras: []string{intro}}}}
	s, _, err := fetchCharts(ctx, o.Prom, o.RunID, o.Target, o.From, now, Roles(o.Components)) // no resource table: only the charts refresh
	if err != nil {
		data.NoCharts = "Prometheus did not answer: " + err.Error()
	} else {
		figures := section{Title: "Now", Tables: []table{liveFigures(ctx, o.Prom, o.RunID, o.Target, "", now)}}
		if o.SearchID != "" {
			figures.Tables = append(figures.Tables, liveFigures(ctx, o.Prom, o.RunID, o.Target, o.SearchID, now))
		}
		if note := s.startupNote(); note != "" {
			figures.Paras = append(figures.Paras, note)
		}
		if note := s.unmatchedNote(o.Components); note != "" {
			figures.Paras = append(figures.Paras, note)
		}
		data.Sections = append(data.Sections, figures)
		data.Charts = liveCharts(s)
	}
	var b bytes.Buffer
	if err := page.Execute(&b, data); err != nil {
		return nil, err
	}
	head := fmt.Sprintf(`<meta name="imbench-data-time" content="%s"><script>%s</script></head>`,
		now.UTC().Format(time.RFC3339Nano), fmt.Sprintf(liveScript, o.Every.Milliseconds()))
	out := bytes.Replace(b.Bytes(), []byte("</head>"), []byte(head), 1)
	if bytes.Equal(out, b.Bytes()) {
		return nil, fmt.Errorf("report page has no </head> to put the live script in")
	}
	return out, nil
}

// liveChart is what page draws of a chart.
type liveChart struct {
	Title, Note string
	SVG         template.HTML
	Legend      []legendItem
}

// liveCharts draws s's charts as report.html does.
func liveCharts(s *Series) []liveChart {
	var out []liveChart
	for _, c := range s.Charts {
		svg, items := svgChart(c, s.From, s.To, s.StepSec)
		ch := liveChart{Title: c.Title, SVG: template.HTML(svg), Legend: items, Note: chartNote(c, "No data yet.")}
		out = append(out, ch)
	}
	return out
}

// liveFigures evaluates the dashboard's stat panels for the run at t.
func liveFigures(ctx context.Context, prom Prom, runID, target, searchID string, t time.Time) table {
	fill := strings.NewReplacer("$run_id", runID, "$target", regexp.QuoteMeta(target), "$instance", ".*", "$search_id", searchID)
	out := table{Head: []string{"Figure", "Value"}}
	for _, p := range dashboards.Build()["im-benchmark.json"].Panels {
		if p.Type != "stat" || strings.Contains(p.Targets[0].Expr, "$search_id") != (searchID != "") {
			continue // the search's figures on a search's page only
		}
		unit, _ := p.FieldConfig["defaults"].(map[string]any)["unit"].(string)
		var parts []string
		for _, tg := range p.Targets {
			v := "—"
			if res, err := prom.Instant(ctx, fill.Replace(tg.Expr), t); err == nil && len(res) > 0 {
				var vs []string
				for _, r := range res {
					vs = append(vs, statText(r.Value, unit))
				}
				v = strings.Join(vs, ", ")
			}
			parts = append(parts, strings.TrimSpace(v+" "+tg.LegendFormat))
		}
		out.Rows = append(out.Rows, []string{p.Title, strings.Join(parts, " / ")})
	}
	return out
}

func statText(v float64, unit string) string {
	if unit == "percentunit" {
		return dec(v*100, 2) + " %"
	}
	return num(v)
}

// liveScript reloads the page's data every %d ms by fetching the page again
// and swapping its body in; the first failed fetch (the run ended and its
// server stopped) ends the loop with a note.
const liveScript = `(() => {
const every = %d;
const tick = async () => {
	let doc;
	try {
		const r = await fetch(location.href, {cache: 'no-store'});
		if (!r.ok) throw new Error('HTTP ' + r.status);
		doc = new DOMParser().parseFromString(await r.text(), 'text/html');
	} catch (e) {
		const p = document.createElement('p');
		p.className = 'note';
		p.textContent = 'The live view has stopped: the run ended (its report is in results/) or imbench is gone.';
		document.body.prepend(p);
		return;
	}
	document.title = doc.title;
	document.querySelector('meta[name=imbench-data-time]').content = doc.querySelector('meta[name=imbench-data-time]').content;
	document.body.innerHTML = doc.body.innerHTML;
	setTimeout(tick, every);
};
setTimeout(tick, every);
})();`

// unmatchedNote names the target's process groups with no line on the CPU
// chart so far: no process matched them.
func (s *Series) unmatchedNote(components []Component) string {
	drawn := map[string]bool{}
	for _, c := range s.Charts {
		if c.Title != "CPU per component" {
			continue
		}
		for _, l := range c.Lines {
			drawn[l.Name] = len(l.Points) > 0
		}
	}
	if len(drawn) == 0 {
		return "" // no process data at all yet: the chart says so
	}
	return UnmatchedText(components, func(g string) bool { return drawn[g] })
}
