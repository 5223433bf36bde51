package report

import (
	"context"
	"time"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/limit"
)

// StepUsage reads a limit search step's usage from Prometheus' series of
// the resource table (a server on another host with its own exporters):
// nil where Prometheus does not answer. The generator's row is left out.
func StepUsage(prom Prom, roles map[string]string) func(ctx context.Context, s summary.Summary, from, to time.Time) []limit.Usage {
	return func(ctx context.Context, s summary.Summary, from, to time.Time) []limit.Usage {
		if !prom.Ready(ctx) {
			return nil
		}
		fctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		time.Sleep(6 * time.Second) // the recording rules' next evaluation covers the window's end
		series, err := Fetch(fctx, prom, s.RunID, s.Target, from, to, roles)
		if err != nil || len(series.Resources) == 0 {
			return nil
		}
		return usageOf(series)
	}
}

// usageOf is a step's usage from the resource table's series: its rows,
// and each part's memory growth from the memory chart's line.
func usageOf(s *Series) []limit.Usage {
	growth := map[string]float64{}
	for _, c := range s.Charts {
		if c.Title != "Resident memory per component" {
			continue
		}
		for _, l := range c.Lines {
			if n := len(l.Points); n >= 4 {
				q := n / 4
				var first, last float64
				for i := 0; i < q; i++ {
					first += l.Points[i][1] / float64(q)
					last += l.Points[n-1-i][1] / float64(q)
				}
				growth[l.Name] = last - first
			}
		}
	}
	var out []limit.Usage
	for _, r := range s.Resources {
		if r.Role == "generator" {
			continue
		}
		out = append(out, limit.Usage{Component: r.Component, Role: r.Role, Processes: r.Processes, CPUAvg: r.CPUAvg, CPUPeak: r.CPUPeak,
			RSSAvg: r.RSSAvg, RSSPeak: r.RSSPeak, RSSGrowth: growth[r.Component]})
	}
	return out
}
