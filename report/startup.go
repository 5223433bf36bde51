package report

import (
	"fmt"
	"time"
)

// startupGrace bounds what counts as Prometheus starting with the run
// (`make up`, then the run at once): its process started at most this long
// into the window, and its first sample came at most this long after its
// start. The window's stretch before that sample is then its startup: said
// once, plainly, and neither an outage nor a hole in a chart. A Prometheus
// that started later, or was running but had no samples, is an outage.
const startupGrace = 30 * time.Second

// startupGap is the window's stretch before Prometheus' first sample in it
// (first) when Prometheus started with the run, else nil.
func startupGap(from, started, first time.Time) *Gap {
	if started.IsZero() || !first.After(from) || started.After(first) ||
		first.Sub(started) > startupGrace || started.Sub(from) > startupGrace {
		return nil
	}
	return &Gap{From: from.UTC(), To: first.UTC()}
}

// withoutStartup is outs less the startup: what of them lies after it.
func withoutStartup(outs []Gap, startup *Gap) []Gap {
	if startup == nil {
		return outs
	}
	var out []Gap
	for _, g := range outs {
		if !g.From.After(startup.To) {
			if !g.To.After(startup.To) {
				continue
			}
			g.From = startup.To
		}
		out = append(out, g)
	}
	return out
}

// ruleWarmup is how long after Prometheus' first sample a recording rule
// may have its first: its source's first scrape (up to a scrape interval
// after the first target's) and the rule's next evaluation.
const ruleWarmup = 10 * time.Second

// coveredFrom is where the resource rules' samples can begin: after
// Prometheus' startup and the rules' first evaluations, if it started with
// the run.
func (s *Series) coveredFrom() time.Time {
	if s.Startup != nil {
		return s.Startup.To.Add(ruleWarmup)
	}
	return s.From
}

// startupNote says what the startup leaves out, or "" without one.
func (s *Series) startupNote() string {
	if s.Startup == nil {
		return ""
	}
	g := *s.Startup
	return fmt.Sprintf("Prometheus started with this run (at %s UTC): nothing is measured before its first sample, "+
		"the window's first %s (%s to %s); the charts and the resource figures begin there.",
		s.PrometheusStarted.Format("15:04:05"), g.To.Sub(g.From).Round(time.Second),
		g.From.Format("15:04:05"), g.To.Format("15:04:05"))
}
