package dashboards

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The committed JSON is what the code generates: `make generate` rewrites it.
func TestCommittedJSONMatchesTheCode(t *testing.T) {
	for name, d := range Build() {
		want, err := Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%s: %v (run make generate)", name, err)
		}
		if string(got) != string(want) {
			t.Errorf("%s drifted from dashboards/*.go: run make generate", name)
		}
	}
}

// Shape checks Grafana would otherwise only report when loading them.
func TestDashboardsAreWellFormed(t *testing.T) {
	uids := map[string]bool{}
	for name, d := range Build() {
		if d.UID == "" || uids[d.UID] {
			t.Errorf("%s: uid %q missing or repeated", name, d.UID)
		}
		uids[d.UID] = true
		ids := map[int]bool{}
		type rect struct{ x0, y0, x1, y1 int }
		var placed []rect
		for _, p := range d.Panels {
			if ids[p.ID] {
				t.Errorf("%s: panel id %d repeated", name, p.ID)
			}
			ids[p.ID] = true
			g := p.GridPos
			if g.W < 1 || g.X+g.W > 24 || g.H < 1 {
				t.Errorf("%s: panel %q has grid %+v", name, p.Title, g)
			}
			r := rect{g.X, g.Y, g.X + g.W, g.Y + g.H}
			for _, o := range placed {
				if r.x0 < o.x1 && o.x0 < r.x1 && r.y0 < o.y1 && o.y0 < r.y1 {
					t.Errorf("%s: panel %q overlaps another", name, p.Title)
				}
			}
			placed = append(placed, r)
			if p.Type == "row" {
				continue
			}
			if len(p.Targets) == 0 {
				t.Errorf("%s: panel %q has no query", name, p.Title)
			}
			for _, tg := range p.Targets {
				uid, _ := tg.Datasource["uid"].(string)
				typ, _ := tg.Datasource["type"].(string)
				switch {
				case uid == PromUID && typ == "prometheus":
					if tg.QueryType != "" || tg.MaxLines != 0 {
						t.Errorf("%s: panel %q gives a Prometheus query log options", name, p.Title)
					}
				case uid == LogsUID && typ == LogsType:
					// LogsQL, as the VictoriaLogs plugin runs it for a logs
					// panel: an instant query for lines, bounded.
					if p.Type != "logs" || tg.QueryType != "instant" || tg.MaxLines <= 0 || tg.Range || tg.Instant {
						t.Errorf("%s: panel %q: VictoriaLogs query %+v", name, p.Title, tg)
					}
				default:
					t.Errorf("%s: panel %q queries datasource %q of type %q", name, p.Title, uid, typ)
				}
			}
		}
	}
}

// The log panel selects the run by its run_id and the target's own log by
// the labels the reference target pushes with (internal/lokipush in
// targets/reference), in LogsQL stream filters, not LogQL.
func TestLogPanelIsLogsQL(t *testing.T) {
	var found []Target
	for _, d := range Build() {
		for _, p := range d.Panels {
			for _, tg := range p.Targets {
				if tg.Datasource["uid"] == LogsUID {
					found = append(found, tg)
				}
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d VictoriaLogs queries, want the log panel's one", len(found))
	}
	q := found[0].Expr
	for _, want := range []string{`{run_id="$run_id"}`, `{job="imbench-target", target="$target"}`} {
		if !strings.Contains(q, want) {
			t.Errorf("log query %q lacks %s", q, want)
		}
	}
	// LogQL's line filters and pipelines are no LogsQL.
	for _, logql := range []string{"|=", "|~", "!=", "| json", "| logfmt"} {
		if strings.Contains(q, logql) {
			t.Errorf("log query %q has LogQL's %q", q, logql)
		}
	}
}

// Grafana's provisioning gives each datasource the uid and type the panels use.
func TestProvisionedDatasourcesFitThePanels(t *testing.T) {
	raw, err := os.ReadFile("provisioning/datasources/datasources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Datasources []struct{ Name, Type, UID, URL string } `yaml:"datasources"`
	}
	if err := yaml.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	urls := map[string]string{}
	for _, d := range f.Datasources {
		types[d.UID], urls[d.UID] = d.Type, d.URL
	}
	if types[PromUID] != "prometheus" || types[LogsUID] != LogsType || len(types) != 2 {
		t.Errorf("provisioned datasources %v, want %s: prometheus and %s: %s", types, PromUID, LogsUID, LogsType)
	}
	if urls[LogsUID] != "http://victorialogs:9428" {
		t.Errorf("VictoriaLogs datasource at %q, want compose's http://victorialogs:9428", urls[LogsUID])
	}
}
