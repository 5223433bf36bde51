// Package runner runs a scenario in-process: it evaluates the scenario's
// JavaScript once (an embedded engine, github.com/grafana/sobek), takes the
// workload, thresholds and options it exports, then drives the engine:
// setup, logins, sending, late logins, drain, reconciliation, the summary,
// thresholds and handleSummary. Metrics go to Prometheus by remote write,
// the log by Loki's push protocol. Files: script.go (evaluation), module.go
// (what `import im from 'imbench'` gives), options.go (scenario options,
// the target and run options from the environment), run.go (one run's
// state), worker.go (a worker's users through the phases), metrics.go (the
// series load/promrw writes), summary.go, thresholds.go, runner.go (the
// whole run and its exit code).
package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/grafana/sobek"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/strictjson"
)

// module is the 'imbench' module of one evaluation.
type module struct {
	rt    *sobek.Runtime
	runID string
}

// Exported names the module's functions, for the .d.ts test.
var Exported = []string{"workload", "integration", "table"}

func (m *module) exports() sobek.Value {
	o := m.rt.NewObject()
	_ = o.Set("workload", m.workload)
	_ = o.Set("integration", m.integration)
	_ = o.Set("table", m.table)
	return o
}

// PlanHandle is a built plan as JS sees it.
type PlanHandle struct {
	p *plan.Plan

	Name      string  `js:"name"`
	Users     int     `js:"users"`
	Immediate int     `js:"immediate"`
	Late      int     `js:"late"`
	Timed     int     `js:"timed"`
	Never     int     `js:"never"`
	Groups    int     `js:"groups"`
	Friends   int     `js:"friendships"`
	Messages  int64   `js:"messages"` // -1: bounded by time only
	Rate      float64 `js:"rate"`
	Seconds   float64 `js:"seconds"` // sending time at the plan's pace
}

// Plan is the plan itself.
func (h *PlanHandle) Plan() *plan.Plan { return h.p }

// workload builds the plan of a workload (see plan.Workload): a list of
// classes of registered kinds.
func (m *module) workload(v sobek.Value) (*PlanHandle, error) {
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return nil, errors.New("im.workload: a workload object is required")
	}
	var w plan.Workload
	if err := strictjson.Convert(v.Export(), &w); err != nil {
		return nil, fmt.Errorf("im.workload: %w", err)
	}
	w.Classes = m.inOrder(v, w.Classes)
	return m.build("im.workload", w)
}

// inOrder is the workload's classes as the file wrote them, its objects'
// keys in their order (a group's from: { teachers: 1, students: 10 } draws
// the teacher first), where JSON.stringify gives them; else classes.
func (m *module) inOrder(v sobek.Value, classes []json.RawMessage) []json.RawMessage {
	stringify, ok := sobek.AssertFunction(m.rt.Get("JSON").ToObject(m.rt).Get("stringify"))
	if !ok {
		return classes
	}
	out, err := stringify(sobek.Undefined(), v)
	var w struct {
		Classes []json.RawMessage `json:"classes"`
	}
	if err != nil || json.Unmarshal([]byte(out.String()), &w) != nil || len(w.Classes) != len(classes) {
		return classes
	}
	return w.Classes
}

// integration builds the plan of OpenIM's integration_test flags (see
// plan.Integration): a workload of one integration class.
func (m *module) integration(v sobek.Value) (*PlanHandle, error) {
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return nil, errors.New("im.integration: an options object is required")
	}
	var in plan.Integration
	if err := strictjson.Convert(v.Export(), &in); err != nil {
		return nil, fmt.Errorf("im.integration: %w", err)
	}
	w, err := in.Workload()
	if err != nil {
		return nil, fmt.Errorf("im.integration: %w", err)
	}
	return m.build("im.integration", w)
}

func (m *module) build(what string, w plan.Workload) (*PlanHandle, error) {
	if w.RunID == "" {
		w.RunID = m.runID
	}
	p, err := w.Build()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return handleOf(p), nil
}

func handleOf(p *plan.Plan) *PlanHandle {
	return &PlanHandle{p: p, Name: p.Name, Users: p.Users, Immediate: p.Count(plan.Immediate),
		Late: p.Count(plan.Late), Timed: p.Count(plan.Timed), Never: p.Count(plan.Never), Groups: len(p.Groups), Friends: len(p.Friends),
		Messages: p.Planned(), Rate: p.Rate, Seconds: p.Duration().Seconds()}
}

// table is the seed-style table of a summary, what a run prints at its end:
// for a handleSummary that adds to it rather than replacing it.
func (m *module) table(v sobek.Value) (string, error) {
	var s summary.Summary
	if v == nil || sobek.IsUndefined(v) {
		return "", errors.New("im.table(summary): the summary handleSummary was given is required")
	}
	exported := v.Export()
	if m, ok := exported.(map[string]any); ok {
		m = maps.Clone(m)
		delete(m, "thresholds") // handleSummary's, not summary.json's
		exported = m
	}
	if err := strictjson.Convert(exported, &s); err != nil {
		return "", fmt.Errorf("im.table: %w", err)
	}
	return s.Table(), nil
}
