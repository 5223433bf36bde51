package conformance

import (
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// Checking is a connection's handler that verifies each arrival as the
// engine does, for a driver's tests that hand its frames to one user
// without a server.
type Checking struct {
	checker *verify.Checker
	inbox   *verify.Inbox
	Tally   verify.Tally
}

// NewChecking verifies what user me of plan p is shown.
func NewChecking(p *plan.Plan, me uint32) *Checking {
	return &Checking{checker: &verify.Checker{Run: []byte(p.RunID), Plan: p}, inbox: verify.NewInbox(me)}
}

func (h *Checking) Arrive(a verify.Arrival) { h.checker.Receive(h.inbox, a, time.Now(), &h.Tally) }

func (h *Checking) Closed(engine.Conn, error, bool) {}
