// Package dashboards builds imbench's Grafana dashboards as code. `make
// generate` writes them as *.json beside this file; Grafana provisions them
// from there (provisioning/). Every query reads the recording rules in
// prometheus/rules, so a dashboard shows the same numbers whichever exporter
// measured them, and the run report draws the same panels.
package dashboards

import (
	"encoding/json"
	"fmt"
)

// Datasource uids and types, fixed in provisioning/datasources/datasources.yaml.
// The log store is VictoriaLogs, through its Grafana plugin; its queries are
// LogsQL.
const (
	PromUID  = "prometheus"
	LogsUID  = "victorialogs"
	LogsType = "victoriametrics-logs-datasource"
)

// Target is one query of a panel: PromQL for Prometheus, LogsQL for
// VictoriaLogs (QueryType "instant": log lines; MaxLines: at most so many).
type Target struct {
	RefID        string         `json:"refId"`
	Datasource   map[string]any `json:"datasource"`
	Expr         string         `json:"expr"`
	LegendFormat string         `json:"legendFormat,omitempty"`
	Instant      bool           `json:"instant,omitempty"`
	Range        bool           `json:"range,omitempty"`
	Format       string         `json:"format,omitempty"`
	QueryType    string         `json:"queryType,omitempty"`
	MaxLines     int            `json:"maxLines,omitempty"`
}

// Panel is a Grafana panel.
type Panel struct {
	ID              int            `json:"id"`
	Type            string         `json:"type"`
	Title           string         `json:"title"`
	Description     string         `json:"description,omitempty"`
	GridPos         GridPos        `json:"gridPos"`
	Datasource      map[string]any `json:"datasource,omitempty"`
	Targets         []Target       `json:"targets,omitempty"`
	FieldConfig     map[string]any `json:"fieldConfig,omitempty"`
	Options         map[string]any `json:"options,omitempty"`
	Transformations []any          `json:"transformations,omitempty"`
	Collapsed       *bool          `json:"collapsed,omitempty"`
	Panels          []Panel        `json:"panels,omitempty"`
}

// GridPos places a panel on Grafana's 24-column grid.
type GridPos struct {
	H int `json:"h"`
	W int `json:"w"`
	X int `json:"x"`
	Y int `json:"y"`
}

// Dashboard is a Grafana dashboard (schema 39).
type Dashboard struct {
	UID           string         `json:"uid"`
	Title         string         `json:"title"`
	Description   string         `json:"description"`
	Tags          []string       `json:"tags"`
	Timezone      string         `json:"timezone"`
	Refresh       string         `json:"refresh"`
	SchemaVersion int            `json:"schemaVersion"`
	Editable      bool           `json:"editable"`
	Time          map[string]any `json:"time"`
	Templating    map[string]any `json:"templating"`
	Annotations   map[string]any `json:"annotations"`
	Panels        []Panel        `json:"panels"`
}

func prom() map[string]any { return map[string]any{"type": "prometheus", "uid": PromUID} }
func logs() map[string]any { return map[string]any{"type": LogsType, "uid": LogsUID} }

// layout places panels left to right, wrapping at 24 columns.
type layout struct {
	x, y, rowH int
	id         int
	panels     []Panel
}

func (l *layout) row(title string) {
	if l.x > 0 {
		l.y += l.rowH
		l.x, l.rowH = 0, 0
	}
	l.id++
	f := false
	l.panels = append(l.panels, Panel{ID: l.id, Type: "row", Title: title, Collapsed: &f, GridPos: GridPos{H: 1, W: 24, Y: l.y}})
	l.y++
}

func (l *layout) add(p Panel, w, h int) {
	if l.x+w > 24 {
		l.y += l.rowH
		l.x, l.rowH = 0, 0
	}
	l.id++
	p.ID = l.id
	p.GridPos = GridPos{H: h, W: w, X: l.x, Y: l.y}
	if p.Datasource == nil {
		p.Datasource = prom()
	}
	for i := range p.Targets {
		if p.Targets[i].Datasource == nil {
			p.Targets[i].Datasource = p.Datasource
		}
		if p.Targets[i].RefID == "" {
			p.Targets[i].RefID = string(rune('A' + i))
		}
		if !p.Targets[i].Instant && p.Targets[i].Datasource["uid"] == PromUID {
			p.Targets[i].Range = true
		}
	}
	l.panels = append(l.panels, p)
	l.x += w
	l.rowH = max(l.rowH, h)
}

func series(expr, legend string) Target { return Target{Expr: expr, LegendFormat: legend} }

func timeseries(title, unit, desc string, t ...Target) Panel {
	return Panel{Type: "timeseries", Title: title, Description: desc, Targets: t,
		FieldConfig: map[string]any{"defaults": map[string]any{"unit": unit}, "overrides": []any{}},
		Options:     map[string]any{"legend": map[string]any{"displayMode": "table", "placement": "bottom", "calcs": []string{"mean", "max", "lastNotNull"}}}}
}

func stat(title, unit, desc string, t ...Target) Panel {
	for i := range t {
		t[i].Instant = true
	}
	return Panel{Type: "stat", Title: title, Description: desc, Targets: t,
		FieldConfig: map[string]any{"defaults": map[string]any{"unit": unit}, "overrides": []any{}},
		Options:     map[string]any{"reduceOptions": map[string]any{"calcs": []string{"lastNotNull"}, "fields": "", "values": false}, "colorMode": "value", "graphMode": "none"}}
}

func variable(name, label, query string, all bool) map[string]any {
	v := map[string]any{
		"type": "query", "name": name, "label": label, "datasource": prom(),
		"query":   map[string]any{"query": query, "refId": "v_" + name},
		"refresh": 2, "sort": 2, "includeAll": all, "multi": all,
	}
	if all {
		v["allValue"] = ".*"
		v["current"] = map[string]any{"text": "All", "value": "$__all"}
	}
	return v
}

// dashboard lays out an imbench dashboard: the run_id variable first, then
// vars; the run as an annotation.
func dashboard(uid, title, desc string, vars []any, panels []Panel) Dashboard {
	vars = append([]any{variable("run_id", "Run", `label_values(imbench_messages_sent_total, run_id)`, false)}, vars...)
	annotations := []any{map[string]any{
		"builtIn": 1, "datasource": map[string]any{"type": "grafana", "uid": "-- Grafana --"},
		"enable": true, "hide": true, "iconColor": "rgba(0, 211, 255, 1)", "name": "Annotations & Alerts", "type": "dashboard",
	}, runAnnotation(), outageAnnotation()}
	return Dashboard{UID: uid, Title: title, Description: desc, Tags: []string{"imbench"}, Timezone: "browser",
		Refresh: "5s", SchemaVersion: 39, Editable: false, Time: map[string]any{"from": "now-30m", "to": "now"},
		Templating: map[string]any{"list": vars}, Annotations: map[string]any{"list": annotations}, Panels: panels}
}

// The run's lifetime: Grafana turns consecutive non-zero points of a
// Prometheus annotation query into one region, from the run's start to its end.
func runAnnotation() map[string]any {
	return map[string]any{
		"name": "Run", "enable": true, "iconColor": "#8AB8FF", "datasource": prom(),
		"expr":        `max(imbench_online_users{run_id=~"$run_id"}) >= 0`,
		"step":        "5s",
		"titleFormat": "run $run_id",
		"textFormat":  "imbench run $run_id",
	}
}

// Drops and users not yet back: a region per outage (a storm, a gateway
// killed, a restart), zero and so invisible the rest of the run. The
// drops' increase keeps an outage shorter than the runner's remote-write
// interval (5 s) visible, which the gauge alone, written as its last
// value, would miss.
func outageAnnotation() map[string]any {
	return map[string]any{
		"name": "Outage", "enable": true, "iconColor": "#F2495C", "datasource": prom(),
		"expr":        `sum(increase(imbench_disconnects_total{run_id=~"$run_id"}[15s])) + sum(imbench_users_down{run_id=~"$run_id"})`,
		"step":        "5s",
		"titleFormat": "outage",
		"textFormat":  "connections dropped: see the report's outages",
	}
}

// Build returns every dashboard by file name.
func Build() map[string]Dashboard {
	return map[string]Dashboard{
		"im-benchmark.json": imBenchmark(),
		"im-generator.json": generator(),
	}
}

// Marshal renders a dashboard as its committed JSON.
func Marshal(d Dashboard) ([]byte, error) {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("dashboard %s: %w", d.UID, err)
	}
	return append(b, '\n'), nil
}
