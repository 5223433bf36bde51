package report

import (
	"context"
	"encoding/json"
	"fmt"
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
	Target  string  // how the target describes itself (profile description)
}

// Window is the stretch of time a run's series are read over: from setup to
// a little after the reconciliation, so k6's last push and the rules
// evaluated after it are in.
func Window(s summary.Summary) (from, to time.Time) {
	return s.StartedAt.Add(-5 * time.Second), s.EndedAt.Add(12 * time.Second)
}

// Options say where the series come from.
type Options struct {
	Prom    *Prom             // nil: no Prometheus
	Refresh bool              // query Prometheus even if series.json exists
	Roles   map[string]string // component → target / generator / observability
	Target  string
}

// Generate writes report.md and report.html into dir (results/<run>), and
// series.json when it queried Prometheus. Series come from series.json when
// it exists (the report can be rebuilt after Prometheus is gone), else from
// Prometheus; without either the report rests on summary.json alone.
func Generate(ctx context.Context, dir string, o Options) (*Report, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, fmt.Errorf("no summary.json in %s: %w", dir, err)
	}
	r := &Report{Dir: dir, Target: o.Target}
	if err := json.Unmarshal(raw, &r.Summary); err != nil {
		return nil, fmt.Errorf("summary.json: %w", err)
	}
	if !o.Refresh {
		if r.Series, err = LoadSeries(dir); err != nil {
			return nil, err
		}
	}
	if r.Series == nil && o.Prom != nil && o.Prom.Ready(ctx) {
		from, to := Window(r.Summary)
		if wait := time.Until(to); wait > 0 && wait < time.Minute {
			time.Sleep(wait) // let the rules evaluate k6's last push
		}
		s, err := Fetch(ctx, *o.Prom, r.Summary.RunID, from, to, o.Roles)
		if err != nil {
			return nil, err
		}
		if s.hasData() {
			r.Series = s
			if err := s.Save(dir); err != nil {
				return nil, err
			}
		}
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
func Load(dir string) (*Report, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, fmt.Errorf("no summary.json in %s: %w", dir, err)
	}
	r := &Report{Dir: dir}
	if err := json.Unmarshal(raw, &r.Summary); err != nil {
		return nil, fmt.Errorf("%s/summary.json: %w", dir, err)
	}
	r.Series, err = LoadSeries(dir)
	return r, err
}
