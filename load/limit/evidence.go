package limit

import (
	"fmt"
	"math"
	"slices"
)

// A step that broke while other processes took a quarter of the machine's
// cores is judged on evidence, not on who else ran: run again, a break
// that repeats is the server's whatever else ran; a server starved of the
// cores it was given, or a break that does not repeat, is not.

// repeatSpread is the least spread, run to run, within which a break's
// deciding figure repeats; where runs that held at one load differed more,
// their spread is the measure (at most maxRepeatSpread).
const (
	repeatSpread    = 0.15
	maxRepeatSpread = 0.5
)

// judgeBusy decides a step that broke while the machine was busy (busy
// says how): disturbed is why it is not the server's ("" when it is), and
// evidence what decided either way.
func (r *Result) judgeBusy(st *Step, busy string, o Objective) (disturbed, evidence string) {
	if why := r.starved(st); why != "" {
		return busy + "; " + why, "starved: " + why
	}
	metric, v := o.Deciding(&st.Summary)
	if short := shortfall(st); short != "" {
		metric, v = "sent", st.Achieved
	}
	if metric == "" {
		return busy, ""
	}
	tol := r.spreadHeld(o)
	for i := len(r.Steps) - 1; i >= 0; i-- {
		prev := &r.Steps[i]
		if prev.Asked != st.Asked || prev.Held {
			continue
		}
		pm, pv := o.Deciding(&prev.Summary)
		if shortfall(prev) != "" {
			pm, pv = "sent", prev.Achieved
		}
		if pm == metric && within(pv, v, tol) {
			return "", fmt.Sprintf("repeated: %s %s at step %d, %s at step %d (within %.0f %%): the server's, whatever else ran",
				metric, figureText(metric, pv), prev.N, figureText(metric, v), st.N, 100*tol)
		}
	}
	return busy, ""
}

// starved says how the server's parts were kept off the cores they
// needed: parts that used a quarter less CPU than at a lower load held,
// or a thread that waited for a core three times as long as it ran (it got
// a quarter of what it asked; at a server's capacity on a shared core it
// waits about as long as it runs, and holds its pace) ("" when not).
func (r *Result) starved(st *Step) string {
	var server float64
	for _, u := range st.Usage {
		if u.Role != "target" {
			continue
		}
		server += u.CPUAvg
		if ran := u.ThreadRunnable - u.ThreadWaiting; u.ThreadWaiting > 0 && u.ThreadWaiting >= 3*ran {
			return fmt.Sprintf("%s's least idle thread waited for a core %.0f %% of step %d and ran %.0f %%", u.Component, u.ThreadWaiting, st.N, ran)
		}
	}
	var held *Step
	for i := range r.Steps {
		s := &r.Steps[i]
		if s.Held && s.Asked < st.Asked && (held == nil || s.Asked > held.Asked) {
			held = s
		}
	}
	if held == nil {
		return ""
	}
	var before float64
	for _, u := range held.Usage {
		if u.Role == "target" {
			before += u.CPUAvg
		}
	}
	if before > 0 && server <= 0.75*before {
		return fmt.Sprintf("the server's parts used %.0f %% of one core at %s, less than the %.0f %% they used at %s held: they did not get the cores they needed",
			server, LoadText(st.Asked, r.Params.Dimension), before, LoadText(held.Asked, r.Params.Dimension))
	}
	return ""
}

// spreadHeld is how much a deciding figure may differ run to run and still
// repeat: the widest relative spread of the objective's latency among
// loads held more than once, at least repeatSpread.
func (r *Result) spreadHeld(o Objective) float64 {
	name := latencyNamed(o.Text)
	spread := repeatSpread
	if name == "" {
		return spread
	}
	seen := map[float64][]float64{}
	for _, s := range r.Steps {
		if s.Held && s.Disturbed == "" {
			if v, ok := s.Figures[name]; ok && v > 0 {
				seen[s.Asked] = append(seen[s.Asked], v)
			}
		}
	}
	for _, vs := range seen {
		lo, hi := math.Inf(1), 0.0
		for _, v := range vs {
			lo, hi = min(lo, v), max(hi, v)
		}
		if len(vs) > 1 {
			spread = max(spread, (hi-lo)/hi)
		}
	}
	return min(spread, maxRepeatSpread)
}

// within: a and b, both positive, differ by at most tol of the larger.
func within(a, b, tol float64) bool {
	return a > 0 && b > 0 && math.Abs(a-b) <= tol*max(a, b)
}

func figureText(metric string, v float64) string {
	switch metric {
	case "sent":
		return fmt.Sprintf("%.1f msg/s", v)
	case "integrity":
		return fmt.Sprintf("%.4f", v)
	case "login_time":
		return fmt.Sprintf("%.0f ms", v)
	}
	if slices.Contains(valueMetrics, metric) {
		return fmt.Sprintf("%.0f ms", v)
	}
	return fmt.Sprintf("%.0f", v)
}
