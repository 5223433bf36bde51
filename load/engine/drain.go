package engine

import (
	"context"
	"sync"
	"time"

	"github.com/imbench/imbench/load/verify"
)

// DrainResult says how a drain ended.
type DrainResult struct {
	Reason  string  `js:"reason"` // "complete", "quiet" or "timeout"
	Seconds float64 `js:"seconds"`
}

// Drain waits for deliveries still on their way: until this process has
// received as many deliveries as it expects, or nothing arrived for
// DrainQuiet with no pull under way, or DrainTimeout passed. Then, unless
// every expected delivery arrived (nothing to recover), every online user of
// the session syncs once more with the server (max seqs, pull what is
// missing), which recovers pushes the server stored but never sent, and a
// short quiet wait lets what is still on its way land (unless NoDrainSync).
func (s *Session) Drain() DrainResult {
	s.sh.SetPhase("drain")
	began := time.Now()
	res := DrainResult{Reason: s.waitQuiet(s.sh.Opts.DrainTimeout, true)}
	if !s.sh.Opts.NoDrainSync {
		if res.Reason != "complete" {
			s.finalSync()
		}
		// Also after a complete drain: a push a gap pull overtook, or a
		// duplicate, may still come.
		s.waitQuiet(s.sh.Opts.DrainQuiet, false)
	}
	res.Seconds = time.Since(began).Seconds()
	return res
}

func (s *Session) waitQuiet(limit time.Duration, allowComplete bool) string {
	deadline := time.Now().Add(limit)
	s.sh.touch()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-s.ctx.Done():
			return "stopped"
		}
		now := time.Now()
		if allowComplete && s.sh.inflight.Load() == 0 && s.sh.complete() {
			return "complete"
		}
		last := time.Unix(0, s.sh.lastChange.Load())
		if s.sh.inflight.Load() == 0 && now.Sub(last) >= s.sh.Opts.DrainQuiet {
			return "quiet"
		}
		if now.After(deadline) {
			return "timeout"
		}
	}
}

// complete reports whether this process received every delivery it expects.
// Only meaningful when all senders and receivers are in this process; with
// execution segments the quiet rule ends the drain.
func (sh *Shared) complete() bool {
	t := sh.Totals()
	exp := verify.Sum(t.Expected)
	return exp > 0 && verify.Sum(t.Pushed)+verify.Sum(t.Pulled) >= exp
}

func (s *Session) finalSync() {
	var wg sync.WaitGroup
	sem := make(chan struct{}, s.sh.Opts.LoginParallel)
	for _, u := range s.users {
		c := u.current()
		if c == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ctx, cancel := context.WithTimeout(s.ctx, 60*time.Second)
			defer cancel()
			u.sync(ctx, c, true, nil)
		}()
	}
	wg.Wait()
}
