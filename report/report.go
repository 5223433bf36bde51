package report

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

// Report is one run's report: its summary and, when Prometheus had them,
// the series over its window.
type Report struct {
	Dir     string
	Summary summary.Summary
	Series  *Series // nil: no Prometheus data for this run
	// Thresholds are the scenario's, as the run checked them (none: it
	// had none, or ran with -no-thresholds).
	Thresholds []summary.Threshold
	Target     string // how the target describes itself (profile description)
	// Components are the target's process groups as its profile names
	// them: the resource table says which of them no process matched.
	Components []Component
}

// Component is one of the target's process groups.
type Component struct {
	Group   string
	Note    string // what it counts, where not what its name says
	Profile string // the file that defines it, for the note on a group no process matched
}

// Window is the stretch of time a run's series are read over: from setup to
// a little after the reconciliation, so the runner's last push and the rules
// evaluated after it are in.
func Window(s summary.Summary) (from, to time.Time) {
	return s.StartedAt.Add(-5 * time.Second), s.EndedAt.Add(12 * time.Second)
}

// Options say where the series come from.
type Options struct {
	Prom       *Prom             // nil: no Prometheus
	Refresh    bool              // query Prometheus even if series.json exists
	Roles      map[string]string // component → target / generator / observability
	Target     string
	Components []Component
}

// Generate writes report.md and report.html into dir (results/<run>), and
// series.json when it queried Prometheus. Series come from series.json when
// it exists (the report can be rebuilt after Prometheus is gone), else from
// Prometheus; without either the report rests on summary.json alone.
func Generate(ctx context.Context, dir string, o Options) (*Report, error) {
	r, err := load(dir, !o.Refresh)
	if err != nil {
		return nil, err
	}
	r.Target, r.Components = o.Target, o.Components
	fetched := false // Fetch draws its charts for the roles itself
	if r.Series == nil && o.Prom != nil && o.Prom.Ready(ctx) {
		from, to := Window(r.Summary)
		if wait := time.Until(to); wait > 0 && wait < time.Minute {
			time.Sleep(wait) // let the rules evaluate the runner's last push
		}
		s, err := Fetch(ctx, *o.Prom, r.Summary.RunID, r.Summary.Target, from, to, o.Roles)
		if err != nil {
			return nil, err
		}
		if s.hasData() {
			r.Series, fetched = s, true
			if err := s.Save(dir); err != nil {
				return nil, err
			}
		}
	}
	if r.Series != nil && !fetched && len(o.Roles) > 0 {
		r.Series.ownCharts(o.Roles) // a series.json saved before charts were drawn so
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(r.Markdown()), 0o644); err != nil {
		return nil, err
	}
	html, err := r.HTML()
	if err != nil {
		return nil, err
	}
	return r, os.WriteFile(filepath.Join(dir, "report.html"), html, 0o644)
}

func (s *Series) hasData() bool {
	for _, c := range s.Charts {
		if c.HasData() {
			return true
		}
	}
	return len(s.Resources) > 0
}

// Load reads a run's summary.json and series.json (if any) without writing.
func Load(dir string) (*Report, error) { return load(dir, true) }

func load(dir string, series bool) (*Report, error) {
	s, err := summary.Load(filepath.Join(dir, "summary.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no summary.json in %s: %w", dir, err)
	}
	if err != nil {
		return nil, err
	}
	r := &Report{Dir: dir, Summary: s}
	if r.Thresholds, err = summary.LoadThresholds(dir); err != nil {
		return nil, err
	}
	if series {
		r.Series, err = LoadSeries(dir)
	}
	return r, err
}
