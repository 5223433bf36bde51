package verify

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/imbench/imbench/internal/latency"
	"github.com/imbench/imbench/load/plan"
)

// Kinds indexes per-conversation-kind counters: 0 single, 1 group, 2 room.
const Kinds = 3

// RoomIndex is the chatrooms' slot: their misses are a rate, not a loss.
const RoomIndex = 2

// KindIndex maps a conversation kind to its counter slot.
func KindIndex(k plan.ConvKind) int {
	switch k {
	case plan.Group:
		return 1
	case plan.Room:
		return RoomIndex
	}
	return 0
}

// KindName is the metric tag value of slot i.
func KindName(i int) string { return [Kinds]string{"single", "group", "room"}[i] }

// DropCauses indexes the disconnect counters by why an established
// connection ended (engine.DropCauseOf gives the index).
const DropCauses = 4

// DropCauseName is drop cause i as summary.json and the table name it.
func DropCauseName(i int) string {
	return [DropCauses]string{"server_closed", "heartbeat", "kicked", "read_error"}[i]
}

// LoginCauses indexes the login failure counters by why an attempt failed
// (engine.LoginCause has the same order).
const LoginCauses = 7

// LoginCauseName is the metric tag value of login cause i: the server
// closed the connection before it answered the login, no answer came in
// time, the server refused it, anything else (the dial, TLS, a protocol
// error).
func LoginCauseName(i int) string {
	return [LoginCauses]string{"closed", "no_answer", "refused", "other", "conn_refused", "open_files", "ports"}[i]
}

// Tally counts what one VU's users did and saw. Message counters are split by
// conversation kind; the runner writes them as metric series and
// the summary adds the tallies of all VUs.
type Tally struct {
	Sent, Acked, SendFailed, Expected      [Kinds]atomic.Int64
	Unanswered                             [Kinds]atomic.Int64 // sends with no answer within the timeout: not failed, not known stored
	Pushed, Pulled, Duplicates, OutOfOrder [Kinds]atomic.Int64
	GapPulled                              [Kinds]atomic.Int64 // the part of Pulled that filled a seq gap
	// CatchupPulled is the part of Pulled sent while the user was away
	// ([CatchupReturn]) or dropped ([CatchupReconnect]), found by the
	// login's sync after.
	CatchupPulled                           [catchups][Kinds]atomic.Int64
	PushedAfterPull                         [Kinds]atomic.Int64 // a push of a message the user already had by pull: the client's pull met a late push
	Corrupt, Foreign, Overlap               atomic.Int64
	BeforeJoin                              atomic.Int64 // chatroom messages sent before the receiver joined
	Dispatched                              atomic.Int64 // members (sender included) of acknowledged messages' conversations
	WatchExpected                           atomic.Int64 // deliveries owed to watchers (what they received: Reconciliation.WatchMatched)
	ConnectErrors, Disconnects, Kicks       atomic.Int64
	Reconnects, LoginsImmediate, LoginsLate atomic.Int64
	Logouts, LoginsBack, LoginsTimed        atomic.Int64 // spells away: logged out, and in again; logins at their time on the run's timeline
	PullRequests, HeartbeatsSent            atomic.Int64
	GapPullRequests                         atomic.Int64 // the part of PullRequests made for a seq gap
	HeartbeatsSkipped                       atomic.Int64 // not needed: the connection had written
	NegativeE2E                             atomic.Int64 // received before created: sender's clock ahead
	Unsent                                  atomic.Int64 // still queued or not yet due when the send phase ended
	// Login attempts that failed, first logins and reconnects alike, by
	// cause (LoginCauseName), and the attempts made again after a failure
	// of that cause.
	LoginFailed, LoginRetried [LoginCauses]atomic.Int64
	// Dropped counts the disconnects by cause (DropCauseName).
	Dropped       [DropCauses]atomic.Int64
	LoginsRetried atomic.Int64 // first logins that got online after a failed attempt
	NeverOnline   atomic.Int64 // users due to log in whose every first-login attempt failed

	E2E, Ack [Kinds]Latency

	byClass byClass // arrivals by workload class (ByClass)
	byPop   byClass // arrivals by the receiver's population (ByPopulation)
}

// Latency records one latency series: an HDR histogram (µs, 3 significant
// digits; exact count, sum and max) for the summary and the thresholds, and
// the same values in Prometheus native-histogram buckets for remote write.
// Its size does not grow with the number of values.
type Latency struct {
	mu sync.Mutex
	h  *latency.Histogram
	n  *latency.Native
}

// Record adds one observation.
func (l *Latency) Record(d time.Duration) {
	us := max(d.Microseconds(), 0)
	l.mu.Lock()
	if l.h == nil {
		l.h, l.n = latency.NewHistogram(), new(latency.Native)
	}
	l.h.Record(us)
	l.n.Record(us)
	l.mu.Unlock()
}

// MergeInto adds this series into h.
func (l *Latency) MergeInto(h *latency.Histogram) {
	l.mu.Lock()
	if l.h != nil {
		h.Merge(l.h)
	}
	l.mu.Unlock()
}

// MergeNativeInto adds this series into n.
func (l *Latency) MergeNativeInto(n *latency.Native) {
	l.mu.Lock()
	if l.n != nil {
		n.Merge(l.n)
	}
	l.mu.Unlock()
}

// Totals is a plain snapshot of tallies, summed over VUs.
type Totals struct {
	Sent, Acked, SendFailed, Expected       [Kinds]int64
	Unanswered                              [Kinds]int64
	Pushed, Pulled, GapPulled               [Kinds]int64
	CatchupPulled                           [catchups][Kinds]int64
	Duplicates, OutOfOrder, PushedAfterPull [Kinds]int64
	Corrupt, Foreign, Overlap               int64
	BeforeJoin                              int64
	Dispatched                              int64
	WatchExpected                           int64
	ConnectErrors, Disconnects, Kicks       int64
	Reconnects, LoginsImmediate, LoginsLate int64
	Logouts, LoginsBack, LoginsTimed        int64
	PullRequests, HeartbeatsSent            int64
	GapPullRequests                         int64
	HeartbeatsSkipped                       int64
	NegativeE2E                             int64
	Unsent                                  int64
	LoginFailed, LoginRetried               [LoginCauses]int64
	Dropped                                 [DropCauses]int64
	LoginsRetried, NeverOnline              int64
	ByClass                                 []ClassTotals // by workload class (index into the plan's Streams)
	ByPopulation                            []ClassTotals // by the receiver's population (index into the plan's Populations)
}

// Add folds a tally into the totals.
func (t *Totals) Add(x *Tally) {
	for k := 0; k < Kinds; k++ {
		t.Sent[k] += x.Sent[k].Load()
		t.Acked[k] += x.Acked[k].Load()
		t.SendFailed[k] += x.SendFailed[k].Load()
		t.Unanswered[k] += x.Unanswered[k].Load()
		t.Expected[k] += x.Expected[k].Load()
		t.Pushed[k] += x.Pushed[k].Load()
		t.Pulled[k] += x.Pulled[k].Load()
		t.GapPulled[k] += x.GapPulled[k].Load()
		for c := range catchups {
			t.CatchupPulled[c][k] += x.CatchupPulled[c][k].Load()
		}
		t.Duplicates[k] += x.Duplicates[k].Load()
		t.OutOfOrder[k] += x.OutOfOrder[k].Load()
		t.PushedAfterPull[k] += x.PushedAfterPull[k].Load()
	}
	t.ByClass = addSlots(t.ByClass, x.ByClass())
	t.ByPopulation = addSlots(t.ByPopulation, x.ByPopulation())
	for i := 0; i < LoginCauses; i++ {
		t.LoginFailed[i] += x.LoginFailed[i].Load()
		t.LoginRetried[i] += x.LoginRetried[i].Load()
	}
	for i := 0; i < DropCauses; i++ {
		t.Dropped[i] += x.Dropped[i].Load()
	}
	t.LoginsRetried += x.LoginsRetried.Load()
	t.NeverOnline += x.NeverOnline.Load()
	t.Corrupt += x.Corrupt.Load()
	t.Foreign += x.Foreign.Load()
	t.Overlap += x.Overlap.Load()
	t.BeforeJoin += x.BeforeJoin.Load()
	t.Dispatched += x.Dispatched.Load()
	t.WatchExpected += x.WatchExpected.Load()
	t.ConnectErrors += x.ConnectErrors.Load()
	t.Disconnects += x.Disconnects.Load()
	t.Kicks += x.Kicks.Load()
	t.Reconnects += x.Reconnects.Load()
	t.LoginsImmediate += x.LoginsImmediate.Load()
	t.LoginsLate += x.LoginsLate.Load()
	t.Logouts += x.Logouts.Load()
	t.LoginsBack += x.LoginsBack.Load()
	t.LoginsTimed += x.LoginsTimed.Load()
	t.PullRequests += x.PullRequests.Load()
	t.GapPullRequests += x.GapPullRequests.Load()
	t.HeartbeatsSent += x.HeartbeatsSent.Load()
	t.HeartbeatsSkipped += x.HeartbeatsSkipped.Load()
	t.NegativeE2E += x.NegativeE2E.Load()
	t.Unsent += x.Unsent.Load()
}

// Sum adds up a per-kind counter.
func Sum(a [Kinds]int64) int64 { return a[0] + a[1] + a[RoomIndex] }

// Owed adds up the kinds whose every expected delivery must arrive: all
// but chatrooms.
func Owed(a [Kinds]int64) int64 { return Sum(a) - a[RoomIndex] }

// Causes adds up a per-cause login counter.
func Causes(a [LoginCauses]int64) int64 {
	var n int64
	for _, v := range a {
		n += v
	}
	return n
}

// addSlots folds counters into their totals, slot by slot.
func addSlots(t []ClassTotals, x []ClassCounts) []ClassTotals {
	for i := range x {
		if i >= len(t) {
			t = append(t, make([]ClassTotals, i+1-len(t))...)
		}
		t[i].add(&x[i])
	}
	return t
}
