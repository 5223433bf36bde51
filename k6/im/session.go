package im

import (
	"errors"
	"fmt"
	"time"

	"github.com/grafana/sobek"
	"go.k6.io/k6/lib"

	"github.com/imbench/imbench/k6/im/engine"
	"github.com/imbench/imbench/k6/im/plan"
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
	h.s = run.Shared.NewSession(mi.vu.Context(), lo, hi)
	h.fl = newFlusher(mi, run, h.s)
	go h.fl.loop()
	return h, nil
}

func (h *SessionHandle) barrier(name string) (time.Time, error) {
	return h.run.Shared.Barrier(h.mi.vu.Context(), name, h.local)
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
		if _, err := h.barrier("sent"); err != nil {
			return LoginResult{}, err
		}
	default:
		return LoginResult{}, fmt.Errorf("login phase %q: want immediate or late", phase)
	}
	r := h.s.Login(p)
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
	at, err := h.barrier("online")
	if err != nil {
		return engine.SendResult{}, err
	}
	// The sessions' clocks start together, a moment after the barrier.
	return h.s.Send(at.Add(100*time.Millisecond), time.Minute), nil
}

// Drain waits for deliveries still on their way, then syncs every online
// user once more (see engine.Session.Drain).
func (h *SessionHandle) Drain() (engine.DrainResult, error) {
	if _, err := h.barrier("late"); err != nil {
		return engine.DrainResult{}, err
	}
	return h.s.Drain(), nil
}

// Close ends the users' connections once every VU finished draining.
func (h *SessionHandle) Close() error {
	_, err := h.barrier("drained")
	h.s.Close()
	h.fl.stop()
	return err
}
