package limit

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Params shape a search.
type Params struct {
	// Dimension is what rises: "rate" (the open classes' messages a second)
	// or "users" (users held online).
	Dimension string
	// Start is the first step's load; each step that holds multiplies it
	// by Factor until one breaks (or Max is reached), then the search
	// halves the interval until (broken − held) / held ≤ Resolution.
	Start, Factor, Resolution, Max float64
	// MaxSteps bounds the search whatever the server does.
	MaxSteps int
	// Retries: how many times a step disturbed by other processes runs
	// again at its load before the search is undetermined (default 2).
	Retries int
	// Confirm: the limit found, and the knee above it, run once more
	// before they are reported (default); -1 reports them unconfirmed.
	Confirm int
	// Restarted: every step meets a server started afresh (-before-step).
	Restarted bool
}

// Defaults fills unset parameters.
func (p *Params) Defaults() {
	if p.Factor <= 1 {
		p.Factor = 2
	}
	if p.Resolution <= 0 {
		p.Resolution = 0.05
	}
	if p.MaxSteps <= 0 {
		p.MaxSteps = 20
	}
	if p.Retries == 0 {
		p.Retries = 2
	}
	if p.Dimension == "" {
		p.Dimension = "rate"
	}
}

// Validate refuses parameters no search can work with.
func (p Params) Validate() error {
	switch {
	case p.Dimension != "rate" && p.Dimension != "users":
		return fmt.Errorf("the load dimension is rate or users, not %q", p.Dimension)
	case p.Start <= 0:
		return errors.New("the first step's load must be positive")
	case p.Max > 0 && p.Max < p.Start:
		return fmt.Errorf("the most load to try (%g) is below the first step's (%g)", p.Max, p.Start)
	case p.Resolution >= 1:
		return fmt.Errorf("the resolution is a share of the load (0.05 for 5 %%), got %g", p.Resolution)
	}
	return nil
}

// StepFunc runs one step at a load and returns what it measured; its
// Held, Broken, Cause, Disturbed, Confirm and GeneratorBound are the
// search's to set.
type StepFunc func(ctx context.Context, n int, asked float64) (Step, error)

// Run searches: it steps up until a step breaks the objective, then halves
// the interval down to the resolution, then runs the knee and the limit
// found once more to confirm them. A step that broke while other processes
// took the machine's cores is no knee: its load runs again, Retries times at most,
// after which the search is undetermined on this machine. A step whose
// load the generator could not put out while the server had room ends the
// search: its limit is imbench's, not the server's.
func Run(ctx context.Context, p Params, o Objective, m Machine, run StepFunc, judged func(Step)) (Result, error) {
	p.Defaults()
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	res := Result{Params: p, Objective: o.Text, Machine: m}
	lo, hi := 0.0, math.Inf(1)
	asked := p.Start
	attempts := 0 // disturbed runs at this load
	confirming, rechecking := false, false
	confirmed := map[float64]bool{}
	rechecked := map[float64]bool{} // knees that broke again
	carried := 0.0                  // the rate the server carried when it last fell short
steps:
	for n := 1; n <= p.MaxSteps; n++ {
		if err := ctx.Err(); err != nil {
			res.Stopped = "interrupted"
			break
		}
		st, err := run(ctx, n, round(asked, p.Dimension))
		if err != nil {
			res.Stopped = err.Error()
			res.finish(lo, hi)
			return res, err
		}
		st.Held, st.Broken, err = o.Check(&st.Summary)
		if err != nil {
			return res, err
		}
		st.Figures = o.Figures(&st.Summary)
		if short := shortfall(&st); short != "" && p.Dimension == "rate" {
			// The load was not put on the server: whatever its figures,
			// the step did not hold it (the send lag hides from the
			// latency, which starts at each send).
			st.FellShort = st.Held
			st.Held = false
			st.Broken = append(st.Broken, short)
		}
		st.Confirm, st.Recheck = confirming, rechecking
		sat := saturationOf(&st, res.lowest(st), m)
		if !st.Held {
			st.Cause = &sat
			if busy := disturbedBy(&st, sat, m); busy != "" {
				st.Disturbed, st.Evidence = res.judgeBusy(&st, busy, o)
				if st.Disturbed == "" {
					sat = saturationOf(&st, res.lowest(st), m) // the server's: what of it gave out
					st.Cause = &sat
				}
			}
		}
		// A step that put out its load and met the objective holds,
		// whatever bound the generator: only a broken one can be its.
		if p.Dimension == "rate" && st.Disturbed == "" && !st.Held && sat.Generator {
			st.GeneratorBound, st.GeneratorWhy = true, sat.Why
		}
		res.Steps = append(res.Steps, st)
		if judged != nil {
			judged(st)
		}
		switch {
		case st.Disturbed != "":
			attempts++
			if attempts > max(p.Retries, 0) {
				res.Undetermined = true
				res.Stopped = fmt.Sprintf("undetermined on this machine: %d %s at %s broke while other processes took its cores (the last: %s)",
					attempts, plural(attempts, "run", "runs"), LoadText(st.Asked, p.Dimension), st.Disturbed)
				break steps
			}
			continue // the same load again
		case st.GeneratorBound:
			// Whatever the objective says of it, the step did not put
			// its load on the server: neither this load nor any above it
			// can be judged on this machine. The limit stays the last
			// load the server held in full.
			res.Stopped = "the generator could not put out the load: " + st.GeneratorWhy
			if shortfall(&st) == "" {
				res.Stopped = "the generator was the limit at " + LoadText(st.Asked, p.Dimension) + ", which it put out but not within the objective: " + st.GeneratorWhy
			}
			res.GeneratorLimited = true
			res.finish(lo, math.Inf(1)) // what gave out is the generator, at this step
			if !math.IsInf(hi, 1) {
				// A knee the server broke below it stays the server's knee.
				res.Knee, res.KneeStep = hi, res.stepAt(hi, false)
				res.KneeConfirmed = rechecked[hi]
			}
			return res, nil
		case st.Held:
			lo = math.Max(lo, st.Asked)
			if carried > 0 && st.Asked >= round(carried/heldShare, p.Dimension) {
				carried = 0 // it held more than it carried: no longer at it
			}
			if confirming || rechecking && res.heldAt(st.Asked) > 1 {
				confirmed[st.Asked] = true // a load held twice (of three, where it broke between)
			}
			if rechecking {
				// The knee held when run again: the server carries more
				// now than when it broke there (a JVM done compiling, a
				// heap touched once): the search goes on above it.
				hi = res.brokeAbove(lo)
			}
		default:
			hi = math.Min(hi, st.Asked)
			if rechecking {
				rechecked[st.Asked] = true
			}
			if confirming {
				// The limit did not hold again: it was not the limit.
				lo = res.heldBelow(hi)
			}
			if c := serverCarried(&st, p.Dimension); c > 0 {
				carried = c
			}
		}
		attempts, confirming, rechecking = 0, false, false
		next, done := nextLoad(lo, hi, p)
		if !done && carried > 0 {
			// A server at its capacity carries about that rate whatever
			// is asked above it: the next step asks what it carried (or,
			// held, the most a step carrying it could hold) rather than
			// the middle of a wide interval, so the search spends fewer
			// steps over the server's capacity, each of which may grow a
			// store that slows it. A server that carried no more than the
			// load held already is at it: the step just over it decides.
			if carried > lo && carried < hi {
				next = carried
			} else if carried <= lo {
				over := round(lo*(1+0.99*p.Resolution), p.Dimension)
				next = math.Min(next, math.Max(round(carried/heldShare, p.Dimension), over))
			}
		}
		if !done && round(next, p.Dimension) == round(asked, p.Dimension) {
			done = true // the unit of the load is the resolution here
		}
		if done {
			switch {
			case lo == 0 || p.Confirm < 0:
				break steps
			case !math.IsInf(hi, 1) && !rechecked[hi]:
				// The knee first: held now, it moves the interval up,
				// and a limit confirmed below it would be no limit.
				next, rechecking = hi, true
			case !confirmed[lo]:
				next, confirming = lo, true
			default:
				break steps
			}
		}
		asked = next
	}
	if res.Stopped == "" && len(res.Steps) >= p.MaxSteps {
		unconfirmed := lo > 0 && p.Confirm >= 0 && (!confirmed[lo] || !math.IsInf(hi, 1) && !rechecked[hi])
		if _, done := nextLoad(lo, hi, p); !done || unconfirmed {
			res.Stopped = fmt.Sprintf("%d steps, the most a search makes", p.MaxSteps)
		}
	}
	res.Confirmed = lo > 0 && confirmed[lo]
	res.KneeConfirmed = !math.IsInf(hi, 1) && rechecked[hi]
	res.finish(lo, hi)
	return res, nil
}

// heldBelow is the highest load held under load, not broken since.
func (r *Result) heldBelow(load float64) float64 {
	best := 0.0
	for _, s := range r.Steps {
		if s.Held && s.Asked < load && s.Asked > best && !r.brokeAt(s.Asked) {
			best = s.Asked
		}
	}
	return best
}

// heldAt is how many steps held at a load.
func (r *Result) heldAt(load float64) int {
	n := 0
	for _, s := range r.Steps {
		if s.Held && s.Asked == load {
			n++
		}
	}
	return n
}

// brokeAbove is the lowest load over load that broke, +Inf if none.
func (r *Result) brokeAbove(load float64) float64 {
	best := math.Inf(1)
	for _, s := range r.Steps {
		if !s.Held && s.Disturbed == "" && s.Asked > load {
			best = math.Min(best, s.Asked)
		}
	}
	return best
}

func (r *Result) brokeAt(load float64) bool {
	for _, s := range r.Steps {
		if s.Asked == load && !s.Held && s.Disturbed == "" {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// lowest is the step at the lowest load so far, st included.
func (r *Result) lowest(st Step) *Step {
	b := r.baseline()
	if b == nil || st.Asked < b.Asked {
		return &st
	}
	return b
}

// nextLoad is the next step's load, or done once the interval is narrow
// enough, the most load to try held, or nothing held at the smallest.
func nextLoad(lo, hi float64, p Params) (float64, bool) {
	switch {
	case math.IsInf(hi, 1):
		next := lo * p.Factor
		if p.Max > 0 && lo >= p.Max {
			return 0, true // held at the most load to try
		}
		if p.Max > 0 {
			next = math.Min(next, p.Max)
		}
		return next, false
	case lo == 0:
		next := hi / p.Factor
		if next < minLoad(p) {
			return 0, true // broke even at the smallest load
		}
		return next, false
	case (hi-lo)/lo <= p.Resolution:
		return 0, true
	}
	return (lo + hi) / 2, false
}

func minLoad(p Params) float64 {
	if p.Dimension == "users" {
		return 2
	}
	return 0.1
}

// round keeps users whole and rates to a tenth.
func round(v float64, dim string) float64 {
	if dim == "users" {
		return math.Round(v)
	}
	return math.Round(v*10) / 10
}

// serverCarried is the rate a step that broke carried when the server,
// not the generator nor other processes, held its senders back (0 when
// it did not fall short so).
func serverCarried(st *Step, dim string) float64 {
	if dim != "rate" || st.Disturbed != "" || st.GeneratorBound || st.Cause == nil || st.Cause.Generator || shortfall(st) == "" {
		return 0
	}
	return round(st.Achieved, dim)
}

// heldShare is the share of the rate asked a step must send to hold it.
const heldShare = 0.95

// shortfall says how a rate step fell short of its load: messages still to
// send when its sending ended, or a send rate more than 5 % under the one
// asked ("" when it did not).
func shortfall(st *Step) string {
	if st.Summary.Messages.Unsent > 0 {
		return fmt.Sprintf("%d messages still to send when step %d's sending ended (asked %g msg/s, sent %.1f msg/s)",
			st.Summary.Messages.Unsent, st.N, st.Asked, st.Achieved)
	}
	if st.Achieved > 0 && st.Achieved < heldShare*st.Asked {
		return fmt.Sprintf("step %d sent %.1f msg/s of the %g asked", st.N, st.Achieved, st.Asked)
	}
	return ""
}
