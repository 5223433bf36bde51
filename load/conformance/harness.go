// Package conformance is the test suite every registered protocol passes
// against the reference target: login, send, push, pull, late users,
// closed-loop order, heartbeats, and each fault the target can inject
// counted exactly by the verifier. A protocol's package runs it from a
// test with a Harness that starts the reference target's front end for
// that protocol (see load/openim/conformance_test.go).
package conformance

import (
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
)

// Faults are what the reference target is started with.
type Faults struct {
	Lose        float64
	SkipPush    float64
	Duplicate   float64
	Reorder     float64
	ReorderHold time.Duration
	ReorderLate time.Duration // a reordered push is written this long after the one that overtook it
	Delay       time.Duration
	AckLate     float64 // share of sends stored and pushed, then answered AckLateBy late
	AckLateBy   time.Duration
	// BatchDrop: messages are acknowledged at once and stored in batches
	// per conversation (every BatchWindow); a batch of more than BatchDrop
	// is dropped whole, never stored (OpenIM's msgtransfer over 100).
	BatchDrop   int
	BatchWindow time.Duration
	Capacity    float64 // messages a second the target serves, on one core
	StallPulls  int     // the first this many pulls that find messages go unanswered

	DisconnectEvery time.Duration
	DisconnectCount int
	Seed            uint64
	ReadTimeout     time.Duration // the server's idle deadline; 0 is the protocol's own
	Gateways        int           // >0: a core and this many gateway links
	// The login-drop fault (Harness.LoginDrops): of the logins in a burst
	// (LoginBurst logins within LoginBurstWindow, a second if 0, before;
	// 0: every login), these shares have their connection closed before
	// the login's answer, or never get it.
	LoginDropClose, LoginDropSilent float64
	LoginBurst                      int
	LoginBurstWindow                time.Duration
}

// Server is a reference target serving one protocol, until the test ends.
type Server interface {
	// Target is how a driver reaches it.
	Target() engine.Target
	// Counter sums a counter of the server's metrics over its labels.
	Counter(t testing.TB, name string) float64
	// DropAll drops every connection at once, a reconnect storm, and
	// returns how many it dropped (counted as the disconnect fault's).
	DropAll() int
	// StallNextPulls leaves the next n pulls that find messages unanswered.
	StallNextPulls(n int)
}

// Harness is what a protocol gives the suite.
type Harness struct {
	// System is the registered protocol.
	System string
	// Start serves a fresh reference target with faults.
	Start func(t testing.TB, f Faults) Server
	// WrongCredentials returns the target with credentials the server refuses.
	WrongCredentials func(engine.Target) engine.Target
	// Variants are option sets every clean run repeats with (e.g. OpenIM's
	// envelopes), by name; nil runs once with the target's own.
	Variants map[string]map[string]any
	// LoginDrops: the target drops logins on demand (Faults.LoginDrop*),
	// as the real server does in a burst; the suite checks that they are
	// tried again, counted as the target counts them, and that nothing is
	// lost.
	LoginDrops bool
	// LatePushes: the target writes reordered pushes late on demand
	// (Faults.ReorderLate) and the protocol pushes by seq; the suite checks
	// that a push meeting the client's own gap pull is counted as pushed
	// after pull, not as a duplicate.
	LatePushes bool
	// ServerIdle is how long the reference target lets a client keeping
	// alive as k stay silent by default (its real server's default).
	ServerIdle func(k engine.Keepalive) time.Duration
}

// The fault counters every front end of the reference target exports.
const (
	LostCounter         = "imbench_target_fault_lost_deliveries_total"
	LostMessagesCounter = "imbench_target_fault_lost_messages_total"
	BatchDropsCounter   = "imbench_target_fault_batch_drops_total"
	SkippedCounter      = "imbench_target_fault_skipped_pushes_total"
	DuplicatedCounter   = "imbench_target_fault_duplicated_pushes_total"
	ReorderedCounter    = "imbench_target_fault_reordered_pushes_total"
	LateAcksCounter     = "imbench_target_fault_late_acks_total"
	StalledPullsCounter = "imbench_target_fault_unanswered_pulls_total"
	DisconnectsCounter  = "imbench_target_fault_disconnects_total"
	LoginDropsCounter   = "imbench_target_fault_login_drops_total"
	HeartbeatTOsCounter = "imbench_target_heartbeat_timeouts_total"
)
