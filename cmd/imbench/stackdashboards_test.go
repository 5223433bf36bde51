package main

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/dashboards"
)

// checkDashboards runs every query of every dashboard, variables filled in
// for run, and requires data of each.
func checkDashboards(t *testing.T, s *testStack, run string, from, now time.Time) {
	t.Helper()
	rangeSecs := int(now.Sub(from).Seconds())
	fill := strings.NewReplacer("$run_id", run, "$search_id", s.search, "$target", "reference", "$instance", ".*",
		"$__range", fmt.Sprintf("%ds", rangeSecs), "$__rate_interval", "1m", "$__interval", "5s")
	for name, d := range dashboards.Build() {
		for _, p := range d.Panels {
			for _, tg := range p.Targets {
				expr := fill.Replace(tg.Expr)
				n := 0
				if tg.Datasource["uid"] == dashboards.LogsUID {
					// The log panel over the dashboard's own time range (the
					// target logs as it starts, before the run): the run's
					// lines, imbench's (job=imbench, this run_id), and the
					// target's.
					ago, err := time.ParseDuration(strings.TrimPrefix(fmt.Sprint(d.Time["from"]), "now-"))
					if err != nil {
						t.Fatalf("%s: time range from %v", name, d.Time["from"])
					}
					lines := s.logLines(expr, now.Add(-ago), now)
					n = len(lines)
					var runner, target int
					for _, l := range lines {
						switch {
						case l["job"] == "imbench" && l["run_id"] == run:
							runner++
						case l["job"] == "imbench-target":
							target++
						}
					}
					if runner == 0 || target == 0 {
						t.Errorf("%s / %q: %s finds %d lines of imbench's log of run %s and %d of the target's, want both",
							name, p.Title, expr, runner, run, target)
					}
				} else {
					n = s.series(expr, from, now, tg.Instant)
				}
				if n == 0 {
					t.Errorf("%s / %q: no data for %s", name, p.Title, expr)
				}
			}
		}
		for _, v := range d.Templating["list"].([]any) {
			q := v.(map[string]any)["query"].(map[string]any)["query"].(string)
			m := regexp.MustCompile(`^label_values\((.*), (\w+)\)$`).FindStringSubmatch(fill.Replace(q))
			if m == nil {
				t.Fatalf("%s: variable query %q", name, q)
			}
			var lv struct{ Data []string }
			getJSON(t, s.prom+"/api/v1/label/"+m[2]+"/values?"+url.Values{"match[]": {m[1]}}.Encode(), &lv)
			if len(lv.Data) == 0 || (m[2] == "run_id" && !slices.Contains(lv.Data, run)) {
				t.Errorf("%s: variable %s offers %v", name, m[2], lv.Data)
			}
		}
		for _, a := range d.Annotations["list"].([]any) {
			if expr, ok := a.(map[string]any)["expr"].(string); ok && s.series(fill.Replace(expr), from, now, false) == 0 {
				t.Errorf("%s: annotation %q has no data", name, expr)
			}
		}
	}

}
