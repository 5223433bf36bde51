package limit

import (
	"context"
	"time"

	"github.com/imbench/imbench/load/procgroup"
)

// settle waits, after a step that broke the objective, for the server to
// work off what it still held (a backlog would weigh on the next step):
// until its processes here (the listening owners of the run's ports, not
// every process of their name) use less than a fifth of a core for 3 s,
// or for Waits.SettleAbsent where none of them runs here; Waits.Settle at
// most. It says how long it waited.
func (s *Search) settle(ctx context.Context, sampler *procgroup.Sampler) (waited time.Duration) {
	s.say("the last step broke the objective: waiting for the server to settle")
	start := time.Now()
	deadline := start.Add(s.Waits.Settle)
	seen := false
	defer func() {
		waited = time.Since(start)
		s.say("waited %.0f s for the server to settle", waited.Seconds())
	}()
	for time.Now().Before(deadline) && ctx.Err() == nil {
		sleep(ctx, time.Second)
		now := time.Now()
		var busy float64
		found := false
		for _, u := range sampler.Window(now.Add(-3*time.Second), now) {
			for _, p := range s.Target.Processes {
				if p.Group == u.Group {
					busy = max(busy, u.CPUBusiest)
					found = true
				}
			}
		}
		seen = seen || found
		if found && busy < 20 {
			return
		}
		if !seen && now.Sub(start) >= s.Waits.SettleAbsent {
			return // not on this machine
		}
	}
	return
}

// quiet waits, before a step runs again because other processes took the
// machine's cores, for them to take less than a quarter of its cores over
// 3 s: Waits.Quiet at most. It says how long it waited and what they took.
func (s *Search) quiet(ctx context.Context, sampler *procgroup.Sampler, gen *selfSampler, cores int) time.Duration {
	start := time.Now()
	var others float64
	for time.Since(start) < s.Waits.Quiet && ctx.Err() == nil {
		sleep(ctx, time.Second)
		now := time.Now()
		from := now.Add(-3 * time.Second)
		if from.Before(start) {
			continue
		}
		busy := 100 * sampler.MachineBusy(from, now) * float64(cores)
		others = busy - 100*gen.cores(from, now)
		for _, u := range sampler.Window(from, now) {
			others -= u.CPUAvg // the stack's and the server's parts
		}
		if others < 25*float64(cores) {
			break
		}
	}
	waited := time.Since(start)
	s.say("waited %.0f s for the machine's other processes to quiet (they took %.0f %% of one core at the end); the step's load runs again",
		waited.Seconds(), max(others, 0))
	return waited
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
