package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
)

// errAborted ends a run early: the server lost its state, or a worker's
// users could not log in at all.
var errAborted = errors.New("test aborted")

// worker is the users one worker drives through the phases. Each phase
// first waits for the other workers of this process to finish the previous
// one, so every worker sends only after all logins and late users log in
// only after all sends; in a split run, also until the phase's time on the
// run's common clock, when the other processes are there too.
type worker struct {
	run    *Run
	s      *engine.Session
	ctx    context.Context // the run's: cancelled when any worker ends early
	cancel context.CancelFunc
	local  int // workers in this process
}

// do runs the worker's users: log in, then send (or hold), late logins,
// drain, close. A worker that ends early ends the run for every worker of
// the process first, so that none waits at a barrier for it.
func (w *worker) do(hold time.Duration) (err error) {
	defer func() {
		if err != nil {
			w.cancel()
		}
		w.close()
	}()
	if t := w.run.phaseAt("login"); !t.IsZero() {
		if err := waitUntil(w.ctx, t); err != nil {
			return err
		}
	}
	o := w.s.Login(plan.Immediate)
	if err := w.failed(); err != nil {
		return err
	}
	at, err := w.barrier("online", "send")
	if err != nil {
		return err
	}
	// Nobody of this process online: the run would measure nothing.
	if o.Attempted > 0 && o.Online == 0 && w.run.Shared.Online() == 0 {
		return fmt.Errorf("%w: no user could log in: %v", errAborted, o.FirstErr)
	}
	if hold > 0 && w.run.lostAfterLogin() != "" {
		return nil
	}
	if hold > 0 {
		timed := w.loginTimed(time.Now())
		err := w.hold(hold)
		<-timed
		return err
	}
	if w.run.StartAt.IsZero() {
		at = at.Add(100 * time.Millisecond) // the sessions' clocks start together, a moment after the barrier
	}
	w.run.storm.schedule(w.s.Context(), at, w.run.Shared)
	timed := w.loginTimed(at)
	w.s.Send(at, time.Minute)
	<-timed // users who log in later than sending lasts do so before the late logins
	if err := w.failed(); err != nil {
		return err
	}
	if _, err := w.barrier("sent", "sent"); err != nil {
		return err
	}
	w.s.Login(plan.Late)
	if err := w.failed(); err != nil {
		return err
	}
	if _, err := w.barrier("late", "late"); err != nil {
		return err
	}
	w.s.Drain()
	return w.failed()
}

// loginTimed runs the plan's timeline from start in the background: the
// users whose login it puts at a time, and its spells logged out; the
// channel closes when the last event is done.
func (w *worker) loginTimed(start time.Time) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.s.Timeline(start)
	}()
	return done
}

// hold keeps the users online, heartbeating, once every worker's users are
// online: an idle-holding test.
func (w *worker) hold(d time.Duration) error {
	w.run.Shared.SetPhase("holding")
	from := time.Now()
	err := waitUntil(w.s.Context(), from.Add(d))
	w.run.held.add(from, time.Now())
	if err != nil {
		if f := w.failed(); f != nil {
			return f
		}
		return err
	}
	return nil
}

// close ends the users' connections once every worker of this process is
// done with them.
func (w *worker) close() {
	_, _ = w.run.Shared.Barrier(w.ctx, "drained", w.local)
	w.s.Close()
}

func (w *worker) barrier(name, phase string) (time.Time, error) {
	at, err := w.run.Shared.Barrier(w.ctx, name, w.local)
	if err != nil {
		return at, err
	}
	if t := w.run.phaseAt(phase); !t.IsZero() {
		if late := time.Since(t); late > time.Second {
			w.run.Shared.Logf("phase %s began %s after its time on the run's clock: this process fell behind", phase, late.Round(time.Millisecond))
		}
		return t, waitUntil(w.ctx, t)
	}
	return at, nil
}

// failed is the engine's early end of the run: the server lost its state.
func (w *worker) failed() error {
	if err := w.run.Shared.Failure(); err != nil {
		return fmt.Errorf("%w: %v", errAborted, err)
	}
	return nil
}

func waitUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
