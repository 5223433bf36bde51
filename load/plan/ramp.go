package plan

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// Stage is one step of a ramping rate, as k6's ramping-arrival-rate has
// them: the rate goes linearly from where the previous stage ended (or
// StartRate) to Target over Duration. Rates are messages per second over
// the whole class.
type Stage struct {
	Duration string  `json:"duration"`
	Target   float64 `json:"target"`
}

// ramp is a rate over time: due(k) is when the k-th message (from 0) is due.
type ramp struct {
	start  float64
	stages []rampStage
}

type rampStage struct {
	d      time.Duration
	r0, r1 float64
	n0     float64       // messages due before the stage
	t0     time.Duration // when it begins
}

func newRamp(start float64, stages []Stage) (*ramp, error) {
	if start < 0 {
		return nil, errors.New("startRate must not be negative")
	}
	if len(stages) == 0 {
		return nil, errors.New("stages: at least one")
	}
	r := &ramp{start: start}
	prev, n := start, 0.0
	for i, s := range stages {
		d, err := time.ParseDuration(s.Duration)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("stage %d: duration %q is not a positive duration", i+1, s.Duration)
		}
		if s.Target < 0 {
			return nil, fmt.Errorf("stage %d: target must not be negative", i+1)
		}
		r.stages = append(r.stages, rampStage{d: d, r0: prev, r1: s.Target, n0: n})
		n += (prev + s.Target) / 2 * d.Seconds()
		prev = s.Target
	}
	r.index()
	if n < 1 {
		return nil, errors.New("stages: the rates send no message")
	}
	return r, nil
}

// total is how many messages the ramp sends.
func (r *ramp) total() float64 {
	last := r.stages[len(r.stages)-1]
	return last.n0 + (last.r0+last.r1)/2*last.d.Seconds()
}

func (r *ramp) length() time.Duration {
	var d time.Duration
	for _, s := range r.stages {
		d += s.d
	}
	return d
}

// index sets each stage's start.
func (r *ramp) index() {
	var at time.Duration
	for i := range r.stages {
		r.stages[i].t0 = at
		at += r.stages[i].d
	}
}

// due solves n(t) = k within the stage that holds it: n grows by
// r0·τ + (r1−r0)·τ²/(2D) over a stage. The stage is found by bisection: a
// rate that follows thousands of logins has as many stages.
func (r *ramp) due(n float64) time.Duration {
	in := func(s *rampStage) float64 { return (s.r0 + s.r1) / 2 * s.d.Seconds() }
	// The stage that holds message n: the first whose end passes n (one
	// that ends at n hands it to the next, past any stage at rate 0).
	i := sort.Search(len(r.stages), func(i int) bool { return r.stages[i].n0+in(&r.stages[i]) > n })
	for i < len(r.stages) && in(&r.stages[i]) == 0 { // a stage at rate 0 sends nothing
		i++
	}
	if i == len(r.stages) {
		return r.length()
	}
	s := &r.stages[i]
	x, D := max(n-s.n0, 0), s.d.Seconds()
	var tau float64
	if a := (s.r1 - s.r0) / (2 * D); math.Abs(a) < 1e-12 {
		tau = x / s.r0
	} else {
		tau = (-s.r0 + math.Sqrt(max(0, s.r0*s.r0+4*a*x))) / (2 * a)
	}
	return s.t0 + time.Duration(tau*float64(time.Second))
}
