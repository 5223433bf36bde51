package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/grafana/sobek"
	"go.k6.io/k6/errext"
	"go.k6.io/k6/lib"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
)

// SessionHandle is the users one VU drives, as JS sees them. Each phase
// first waits for the other VUs of this process to finish the previous one,
// so every VU sends only after all logins and late users log in only after
// all sends.
type SessionHandle struct {
	mi    *ModuleInstance
	run   *Run
	s     *engine.Session
	local int // VUs of this scenario in this process
	fl    *flusher
	noop  bool // setup-only run

	First uint32 `js:"first"` // first user index
	Count int    `js:"count"` // users
}

// LoginResult is one login phase as JS sees it.
type LoginResult struct {
	Attempted  int    `js:"attempted"`
	Online     int    `js:"online"`
	Failed     int    `js:"failed"`
	FirstError string `js:"first_error"`
}

// Session opens this VU's share of the plan's users. The share follows
// k6's global VU id (exec.vu.idInTest), which k6 keeps unique across
// execution segments: users of one run never appear in two segments.
func (mi *ModuleInstance) Session(v sobek.Value) (*SessionHandle, error) {
	st := mi.vu.State()
	if st == nil {
		return nil, errors.New("im.session must be called from the default function, not the init context")
	}
	run, sd, err := mi.runOf(v)
	if err != nil {
		return nil, fmt.Errorf("im.session: %w", err)
	}
	vu := int(st.VUIDGlobal)
	if vu < 1 || vu > sd.VUs {
		return nil, fmt.Errorf("im.session: VU %d is outside 1..%d: the scenario must run exactly the vus given to im.setup", vu, sd.VUs)
	}
	lo, hi, err := run.Plan.UserRange(vu, sd.VUs)
	if err != nil {
		return nil, err
	}
	local := sd.VUs
	if es := lib.GetExecutionState(mi.vu.Context()); es != nil && es.ExecutionTuple != nil {
		local = int(es.ExecutionTuple.ScaleInt64(int64(sd.VUs)))
	}
	h := &SessionHandle{mi: mi, run: run, local: local, First: lo, Count: int(hi - lo)}
	if run.Opts.SetupOnly {
		h.noop = true // the run was only set up; its load comes later
		return h, nil
	}
	h.s = run.Shared.NewSession(mi.vu.Context(), lo, hi)
	h.fl = newFlusher(mi, run, h.s)
	go h.fl.loop()
	return h, nil
}

// barrier waits for the other VUs of this process; in a distributed run,
// then also until the phase's time on the run's common clock, when the
// other processes are there too (k6 itself coordinates nothing across
// processes).
func (h *SessionHandle) barrier(name, phase string) (time.Time, error) {
	at, err := h.run.Shared.Barrier(h.mi.vu.Context(), name, h.local)
	if err != nil {
		return at, err
	}
	if t := h.run.phaseAt(phase); !t.IsZero() {
		if late := time.Since(t); late > time.Second {
			h.run.Shared.Logf("phase %s began %s after its time on the run's clock: this process fell behind", phase, late.Round(time.Millisecond))
		}
		return t, waitUntil(h.mi.vu.Context(), t)
	}
	return at, nil
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

// phaseAt is when a phase begins on a distributed run's common clock (zero
// in a single process, where the barriers alone order the phases):
//
//	login   StartAt
//	send    + login window
//	sent    + sending time at the plan's rate + send margin
//	late    + login window (late users logged in and synced)
func (r *Run) phaseAt(phase string) time.Time {
	if r.StartAt.IsZero() {
		return time.Time{}
	}
	login := r.loginWindow()
	send := r.StartAt.Add(login)
	sent := send.Add(r.Plan.Duration()).Add(r.sendMargin())
	return map[string]time.Time{"login": r.StartAt, "send": send, "sent": sent, "late": sent.Add(login)}[phase]
}

// loginWindow allows 500 logins a second per process, plus 10 s.
func (r *Run) loginWindow() time.Duration {
	if d, err := time.ParseDuration(r.Opts.LoginWindow); err == nil && d > 0 {
		return d
	}
	per := (r.Plan.Users + r.Segments - 1) / max(r.Segments, 1)
	return 10*time.Second + time.Duration(per)*time.Second/500
}

func (r *Run) sendMargin() time.Duration {
	if d, err := time.ParseDuration(r.Opts.SendMargin); err == nil && d > 0 {
		return d
	}
	return 15 * time.Second
}

// Login logs in this VU's users of a phase: "immediate" or "late". Late
// users wait until every VU finished sending.
func (h *SessionHandle) Login(phase string) (LoginResult, error) {
	var p plan.Login
	switch phase {
	case "immediate":
		p = plan.Immediate
	case "late":
		p = plan.Late
	default:
		return LoginResult{}, fmt.Errorf("login phase %q: want immediate or late", phase)
	}
	if h.noop {
		return LoginResult{}, nil
	}
	if p == plan.Immediate {
		if t := h.run.phaseAt("login"); !t.IsZero() {
			if err := waitUntil(h.mi.vu.Context(), t); err != nil {
				return LoginResult{}, err
			}
		}
	} else if _, err := h.barrier("sent", "sent"); err != nil {
		return LoginResult{}, err
	}
	r := h.s.Login(p)
	h.stopIfFailed()
	out := LoginResult{Attempted: r.Attempted, Online: r.Online, Failed: r.Failed}
	if r.FirstErr != nil {
		out.FirstError = r.FirstErr.Error()
	}
	return out, nil
}

// Send waits until every VU's users are online, then sends this VU's part
// of the plan at the plan's rate, and returns when all were acknowledged or
// failed.
func (h *SessionHandle) Send() (engine.SendResult, error) {
	if h.noop {
		return engine.SendResult{}, nil
	}
	at, err := h.barrier("online", "send")
	if err != nil {
		return engine.SendResult{}, err
	}
	if h.run.StartAt.IsZero() {
		at = at.Add(100 * time.Millisecond) // the sessions' clocks start together, a moment after the barrier
	}
	h.run.storm.schedule(h.s.Context(), at, h.run.Shared)
	r := h.s.Send(at, time.Minute)
	h.stopIfFailed()
	return r, nil
}

// stopIfFailed aborts the test as exec.test.abort does (one line, exit
// code 108) once the engine ended the run early: the server lost its state.
func (h *SessionHandle) stopIfFailed() {
	if err := h.run.Shared.Failure(); err != nil {
		h.mi.vu.Runtime().Interrupt(&errext.InterruptError{Reason: errext.AbortTest + ": " + err.Error()})
	}
}

// HoldResult says how many users stayed online through a hold.
type HoldResult struct {
	Seconds     float64 `js:"seconds"`
	OnlineAfter int64   `js:"online_after"` // users online in this process when the hold ended
	Disconnects int64   `js:"disconnects"`  // drops during the hold
}

// Hold keeps this VU's users online, heartbeating, for a duration, once
// every VU's users are online: an idle-holding test.
func (h *SessionHandle) Hold(duration string) (HoldResult, error) {
	d, err := time.ParseDuration(duration)
	if err != nil || d <= 0 {
		return HoldResult{}, fmt.Errorf("hold duration %q is not a positive duration", duration)
	}
	if h.noop {
		return HoldResult{}, nil
	}
	if _, err := h.barrier("online", "send"); err != nil {
		return HoldResult{}, err
	}
	before := h.s.Tally.Disconnects.Load()
	began := time.Now()
	if err := waitUntil(h.s.Context(), began.Add(d)); err != nil {
		h.stopIfFailed()
		return HoldResult{}, err
	}
	return HoldResult{Seconds: time.Since(began).Seconds(), OnlineAfter: h.run.Shared.Online(),
		Disconnects: h.s.Tally.Disconnects.Load() - before}, nil
}

// Drain waits for deliveries still on their way, then syncs every online
// user once more (see engine.Session.Drain).
func (h *SessionHandle) Drain() (engine.DrainResult, error) {
	if h.noop {
		return engine.DrainResult{}, nil
	}
	if _, err := h.barrier("late", "late"); err != nil {
		return engine.DrainResult{}, err
	}
	r := h.s.Drain()
	h.stopIfFailed()
	return r, nil
}

// Close ends the users' connections once every VU of this process finished.
func (h *SessionHandle) Close() error {
	if h.noop {
		return nil
	}
	_, err := h.run.Shared.Barrier(h.mi.vu.Context(), "drained", h.local)
	h.s.Close()
	h.fl.stop()
	return err
}
