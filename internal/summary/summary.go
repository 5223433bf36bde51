// Package summary is the schema of results/<run>/summary.json, written by
// the k6/x/im extension at the end of a run and read by the report and
// compare, plus the seed-style table all of them print.
package summary

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/latency"
)

// Summary is results/<run>/summary.json: every figure is counted in this run.
type Summary struct {
	RunID       string            `json:"run_id"`
	Scenario    string            `json:"scenario"`
	Purpose     string            `json:"purpose"`
	System      string            `json:"system"`
	Target      string            `json:"target"`
	TargetAPI   string            `json:"target_api"`
	Segment     string            `json:"execution_segment"`
	Segments    int               `json:"execution_segments"` // how many the run was split over
	StartedAt   time.Time         `json:"started_at"`
	EndedAt     time.Time         `json:"ended_at"`
	Workload    json.RawMessage   `json:"workload"`     // kind and parameters of each class, as built
	ServerCores int               `json:"server_cores"` // the target may run on (its affinity where it runs here), for per-core rates
	Setup       SetupSummary      `json:"setup"`
	Users       UsersSummary      `json:"users"`
	Logins      *LoginsSummary    `json:"logins"` // what logging in cost (absent in older summaries)
	Groups      GroupsSummary     `json:"groups"`
	Messages    MessagesSummary   `json:"messages"`
	Deliveries  DeliveriesSummary `json:"deliveries"`
	// Integrity is the share of expected deliveries that arrived: null in
	// summary.json when none was expected (a chatroom's have their own,
	// Deliveries.Rooms).
	Integrity float64 `json:"integrity"`
	Latency   struct {
		E2E LatencySummary `json:"e2e"`
		Ack LatencySummary `json:"ack"`
	} `json:"latency_ms"`
	Outages    *Outages                   `json:"outages"` // users dropped and their way back
	Generator  GeneratorSummary           `json:"generator"`
	Versions   map[string]string          `json:"versions"`
	Histograms map[string]latency.Encoded `json:"histograms"`    // e2e, ack, login: to merge partial summaries exactly
	Parts      []string                   `json:"parts"`         // the execution segments merged into this one
	Missing    []string                   `json:"missing_parts"` // segments of the run that wrote no summary
	Warnings   []string                   `json:"warnings"`
}

// SetupSummary is what setting the target up took beyond its writes.
type SetupSummary struct {
	// WritesRedone are setup's writes the server answered with a timeout
	// and setup made again (a Wildfire behind answers 249 and does them).
	WritesRedone int64 `json:"writes_redone"`
}

type UsersSummary struct {
	Registered      int `json:"registered"`
	NewlyRegistered int `json:"newly_registered"`
	PlannedOnline   int `json:"planned_immediate"`
	PlannedLate     int `json:"planned_late"`
	// PlannedTimed log in at a time after sending begins (loginAt).
	PlannedTimed int   `json:"planned_timed"`
	OnlinePeak   int64 `json:"online_peak"`
	Logins       int64 `json:"logins"`
	LateLogins   int64 `json:"late_logins"`
	// TimedLogins logged in at their time on the run's timeline (loginAt), in
	// Logins as the late ones are.
	TimedLogins int64 `json:"timed_logins"`
	// Logouts are users logging out for a spell away (a class's away), and
	// LoginsBack their logins after it, each pulling what it missed.
	Logouts       int64 `json:"logouts"`
	LoginsBack    int64 `json:"logins_back"`
	ConnectErrors int64 `json:"connect_errors"`
	Disconnects   int64 `json:"disconnects"`
	// DisconnectCauses splits Disconnects by why each connection ended:
	// server_closed, heartbeat (nothing within the read timeout), kicked,
	// read_error.
	DisconnectCauses map[string]int64 `json:"disconnect_causes"`
	Reconnects       int64            `json:"reconnects"`
	Kicks            int64            `json:"kicks"`
	// Users due to log in (at once or late) whose every login attempt
	// failed: what they were owed is Deliveries.NotAttempted.
	NeverOnline int64 `json:"never_online"`
	// Login attempts that failed, first logins and reconnects alike, by
	// cause, and the attempts made again after a failure of each cause
	// (absent in older summaries and when none failed).
	LoginFailures *LoginCauses `json:"login_failures"`
	LoginRetries  *LoginCauses `json:"login_retries"`
	// First logins that got online after a failed attempt.
	OnlineAfterRetry int64 `json:"online_after_retry"`
	// An idle-holding run: how long its users were held online together,
	// once all had logged in (a split run's: its shortest part).
	HeldSeconds float64 `json:"held_seconds"`
}

// LoginCauses counts login attempts by why they failed.
type LoginCauses struct {
	Closed   int64 `json:"closed"`    // the server closed the connection before it answered the login
	NoAnswer int64 `json:"no_answer"` // no answer in time (a silent refusal looks the same)
	Refused  int64 `json:"refused"`   // the server answered with a refusal
	// ConnRefused: the dial was refused, nothing listened (a server
	// restarting, or down).
	ConnRefused int64 `json:"conn_refused"`
	// OpenFiles: the generator could not open a socket, its open files at
	// their limit (ulimit -n, or the system's); Ports: no local port left
	// to dial from. Limits of the load machine, not the server's.
	OpenFiles int64 `json:"open_files"`
	Ports     int64 `json:"ports"`
	Other     int64 `json:"other"` // the dial otherwise, TLS, a malformed answer
}

// Total adds the causes up.
func (c *LoginCauses) Total() int64 {
	if c == nil {
		return 0
	}
	return c.Closed + c.NoAnswer + c.Refused + c.ConnRefused + c.Other + c.OpenFiles + c.Ports
}

// Add adds o into c.
func (c *LoginCauses) Add(o *LoginCauses) {
	if o != nil {
		c.Closed, c.NoAnswer, c.Refused, c.Other = c.Closed+o.Closed, c.NoAnswer+o.NoAnswer, c.Refused+o.Refused, c.Other+o.Other
		c.ConnRefused += o.ConnRefused
		c.OpenFiles += o.OpenFiles
		c.Ports += o.Ports
	}
}

// Text lists the causes that occurred.
func (c *LoginCauses) Text() string {
	if c == nil {
		return ""
	}
	var parts []string
	for _, x := range []struct {
		n    int64
		what string
	}{{c.Closed, "closed before the answer"}, {c.NoAnswer, "no answer in time"}, {c.Refused, "refused"},
		{c.ConnRefused, "connection refused (nothing listened)"},
		{c.OpenFiles, "the generator's open files at their limit (ulimit -n)"}, {c.Ports, "no local port left to dial from"}, {c.Other, "other"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	return strings.Join(parts, ", ")
}

// LoginsSummary is what logging in cost, first logins and reconnects
// alike: every login that reached online (its sync ended), its time from
// the dial and its requests, WebSocket requests and REST calls (the
// handshake not counted). A login storm costs a server this per user.
type LoginsSummary struct {
	Mode             string         `json:"mode"` // the client's login: OpenIM's "light" or "sdk"
	Count            int64          `json:"count"`
	Failed           int64          `json:"failed"`   // online, but a request of their sync failed
	Requests         int64          `json:"requests"` // made by those logins
	RequestsPerLogin float64        `json:"requests_per_login"`
	TimeToOnline     LatencySummary `json:"time_to_online_ms"` // from the dial to the sync's end
}

// SetPerLogin computes the requests per login.
func (l *LoginsSummary) SetPerLogin() {
	l.RequestsPerLogin = 0
	if l.Count > 0 {
		l.RequestsPerLogin = math.Round(float64(l.Requests)/float64(l.Count)*100) / 100
	}
}

// LoginText says what logging in cost, in a line.
func LoginText(l *LoginsSummary) string {
	if l == nil || l.Count == 0 {
		return "no login reached online"
	}
	mode := ""
	if l.Mode != "" {
		mode = " (" + l.Mode + ")"
	}
	o := l.TimeToOnline
	s := fmt.Sprintf("%d logins%s, %.1f requests each; online %.0f ms on average, p50 %.0f, p99 %.0f, max %.0f ms",
		l.Count, mode, l.RequestsPerLogin, o.Avg, o.P50, o.P99, o.Max)
	if l.Failed > 0 {
		s += fmt.Sprintf("; %d with a failed request", l.Failed)
	}
	return s
}

type GroupsSummary struct {
	Count       int            `json:"count"`
	Friendships int            `json:"friendships"`
	BySize      map[string]int `json:"by_size"` // members → groups of that size
}

type MessagesSummary struct {
	Planned    int64 `json:"planned"` // -1: bounded by time only
	Sent       int64 `json:"sent"`
	Acked      int64 `json:"acked"`
	SendFailed int64 `json:"send_failed"`
	// Unsent were still queued, or not yet due, when the send phase ended:
	// the generator or the server did not keep the planned pace.
	Unsent int64 `json:"unsent"`
	// Unanswered got no answer within the driver's timeout: not failed,
	// since the server may have stored them (Deliveries.OfUnanswered).
	Unanswered    int64   `json:"unanswered"`
	PeakPerSecond int64   `json:"peak_per_second"`
	AvgPerSecond  float64 `json:"avg_per_second"`
	PlannedRate   float64 `json:"planned_rate"` // of the open classes
	// PlannedSeconds is the plan's sending time at its pace (0: closed
	// classes only, which have none).
	PlannedSeconds float64 `json:"planned_seconds"`
	Closed         bool    `json:"closed_pacing"` // some classes send as fast as acknowledged
	Burst          bool    `json:"burst_pacing"`  // some open classes send each second's messages at its start
	MaxSendLagMs   float64 `json:"max_send_lag_ms"`
	// PerSecond counts the sends in each of the run's own seconds, from
	// PerSecondStartMs: a burst within one second is one second's count.
	PerSecond []int64 `json:"per_second"`
	// PlannedPerSecond is what the plan had fall due in each of the same
	// seconds: open classes only, empty where every class is closed.
	PlannedPerSecond []int64 `json:"planned_per_second"`
	// PerSecondStartMs is when the run's first second began (unix ms):
	// when its plan's first message fell due, all processes of a split run
	// counting from the same.
	PerSecondStartMs int64            `json:"per_second_start_ms"`
	FirstSendMs      int64            `json:"first_send_ms"`
	LastSendMs       int64            `json:"last_send_ms"`
	ByType           map[string]int64 `json:"sent_by_type"`
	// Dispatches counts, per acknowledged message, every member of its
	// conversation, the sender included: Wildfire's 分发数.
	Dispatches int64 `json:"dispatches"`
	// OpenPerSecond counts the open classes' sends in the same seconds
	// where closed classes send beside them (empty otherwise: PerSecond
	// is theirs): what PlannedPerSecond is compared with.
	OpenPerSecond []int64 `json:"open_per_second"`
	// ByClass is what each class that sends sent: the pace check judges
	// each open class on its own.
	ByClass []ClassSends `json:"by_class"`
}

// ClassSends is what one workload class sent.
type ClassSends struct {
	Class int  `json:"class"` // 1 for the workload's first class
	Open  bool `json:"open"`  // paced by the plan; a closed class sends as fast as answered
	// PlannedSeconds is an open class's sending time at its pace.
	PlannedSeconds float64 `json:"planned_seconds"`
	Sent           int64   `json:"sent"`
	Unsent         int64   `json:"unsent"` // queued or still to send when the send phase ended
	FirstSendMs    int64   `json:"first_send_ms"`
	LastSendMs     int64   `json:"last_send_ms"`
}

// Pace is the share of its plan's pace an open class kept, 0..1 (false
// for a closed class, or one with no sending time): its sending time
// over the time its sends took, a second of grace on both, times the
// share of its messages sent before the send phase ended.
func (c ClassSends) Pace() (float64, bool) {
	if !c.Open || c.PlannedSeconds <= 0 || c.Sent+c.Unsent == 0 {
		return 0, false
	}
	if c.Sent == 0 {
		return 0, true
	}
	span := max(float64(c.LastSendMs-c.FirstSendMs)/1000, 0)
	pace := min(1, (c.PlannedSeconds+1)/(span+1))
	return pace * float64(c.Sent) / float64(c.Sent+c.Unsent), true
}

// DeliveriesSummary accounts for every delivery owed. Expected counts
// acknowledged messages × their recipients who got online (at once, late or
// after a retry); those owed to users who never got online are
// NotAttempted, in neither Expected nor Lost. Lost = Expected − received
// (of acknowledged messages).
type DeliveriesSummary struct {
	Expected int64 `json:"expected"`
	Received int64 `json:"received"`
	Pushed   int64 `json:"pushed"`
	ByPull   int64 `json:"by_pull"`
	// ByGapPull is the part of ByPull the server owed a push and never
	// pushed: fetched after a sequence gap, by the drain's sync, or by a
	// login's sync when sent before the user left.
	ByGapPull int64 `json:"by_gap_pull"`
	// ByReturnPull and ByReconnectPull are the parts of ByPull sent while
	// the user was away for a spell, or dropped, found by its login after.
	ByReturnPull    int64 `json:"by_return_pull"`
	ByReconnectPull int64 `json:"by_reconnect_pull"`
	Duplicates      int64 `json:"duplicates"`
	OutOfOrder      int64 `json:"out_of_order"`
	// Lost were owed and never arrived, and the server does not hold their
	// messages as far as the store check could tell (or it did not ask).
	Lost int64 `json:"lost"`
	// LostNeverStored is the part of Lost the store check read and did not
	// find: the server acknowledged those messages and never stored them.
	LostNeverStored int64 `json:"lost_never_stored"`
	// Late were owed and not delivered by the end of the drain, while the
	// server holds their messages (the store check read them back): not
	// lost, not delivered either.
	Late int64 `json:"late"`
	// Unchecked were owed and not delivered by the end of the drain, and
	// the server did not answer the store check's read of them (within
	// IM_STORE_CHECK, each read tried three times): whether it holds their
	// messages is not known, so neither late nor lost.
	Unchecked  int64              `json:"unchecked"`
	StoreCheck *StoreCheckSummary `json:"store_check"`
	Unexpected int64              `json:"unexpected"`
	// Deliveries of unanswered sends (Messages.Unanswered): the server
	// stored them and answered late or never. Not in expected, not
	// unexpected.
	OfUnanswered int64 `json:"of_unanswered"`
	Corrupted    int64 `json:"corrupted"`
	Foreign      int64 `json:"foreign"`
	// Owed to users who never got online (Users.NeverOnline): the server
	// had no chance to deliver them.
	NotAttempted int64 `json:"not_attempted"`
	// Pushes of messages the user already had by pull (its gap or sync
	// pull met a push that was only late): no delivery, no duplicate.
	PushedAfterPull int64                       `json:"pushed_after_pull"`
	LostSample      []LostDelivery              `json:"lost_sample"`
	ByType          map[string]DeliveriesByType `json:"by_type"`
	ByClass         []DeliveriesByClass         `json:"by_class"` // the workload's classes that send, in its order
	// ByPopulation is the workload's populations, in name order, by receiver.
	ByPopulation []DeliveriesByPopulation `json:"by_population"`
	Rooms        *RoomsSummary            `json:"rooms"` // not in the figures above
	Watchers     *WatchersSummary         `json:"watchers"`
}

// Undelivered are the expected deliveries that did not arrive: lost, late
// and unchecked.
func (d DeliveriesSummary) Undelivered() int64 { return d.Lost + d.Late + d.Unchecked }

// UncheckedWhy says why the store check could not tell of the unchecked
// deliveries: "the server did not answer 79 of 101 reads of the store
// check, each tried 3 times (the first error: …)".
func UncheckedWhy(c *StoreCheckSummary) string {
	if c != nil && !c.Ran && strings.Contains(c.Skipped, "IM_DRAIN_SYNC=off") {
		return c.Skipped
	}
	if c == nil || !c.Ran || c.ReadsFailed == 0 {
		return "the store check's time ran out before their reads (IM_STORE_CHECK)"
	}
	out := fmt.Sprintf("the server did not answer %d of %d reads of the store check, each tried %d times (the first error: %s)",
		c.ReadsFailed, c.Reads, c.Tries, c.Error)
	if more := c.Readers - c.Reads; more > 0 {
		out += fmt.Sprintf(", and its time ran out before %d more (IM_STORE_CHECK)", more)
	}
	return out
}

// StoreCheckSummary is what the store check did once the drain ended with
// deliveries still owed: it logged receivers in and read back what the
// server holds (their own pulls by seq, messagesync, a feed from its
// start), to tell late from lost.
type StoreCheckSummary struct {
	// Ran: the check read the server's store; false with Skipped saying
	// why not (nothing was owed after the drain, IM_STORE_CHECK=off, …).
	Ran         bool  `json:"ran"`
	Owed        int64 `json:"owed"`           // deliveries owed when the drain ended, listed for the check
	NotListed   bool  `json:"not_listed"`     // more were owed than it lists: the rest stay lost
	Readers     int   `json:"readers"`        // users to read
	Reads       int   `json:"reads"`          // users logged in to read: the rest were not reached in time
	ReadsFailed int   `json:"reads_failed"`   // reads that failed every try or ran out of time
	Retries     int   `json:"retries"`        // reads tried again after a failure
	Tries       int   `json:"tries_per_read"` // how often a read is tried at most
	Unchecked   int64 `json:"unchecked"`      // owed deliveries no read covered: deliveries.unchecked
	// Messages: owed messages the server holds, and those it does not.
	MessagesHeld        int     `json:"messages_held"`
	MessagesNeverStored int     `json:"messages_never_stored"`
	Seconds             float64 `json:"seconds"`
	Error               string  `json:"error"` // the first failed read, or why it stopped
	Skipped             string  `json:"skipped"`
}

// add merges a segment's check into c.
func (c *StoreCheckSummary) add(o *StoreCheckSummary) {
	c.Ran = c.Ran || o.Ran
	c.Owed += o.Owed
	c.NotListed = c.NotListed || o.NotListed
	c.Readers += o.Readers
	c.Reads += o.Reads
	c.ReadsFailed += o.ReadsFailed
	c.Retries += o.Retries
	c.Tries = max(c.Tries, o.Tries)
	c.Unchecked += o.Unchecked
	c.MessagesHeld += o.MessagesHeld
	c.MessagesNeverStored += o.MessagesNeverStored
	c.Seconds = max(c.Seconds, o.Seconds)
	if c.Error == "" {
		c.Error = o.Error
	}
	switch {
	case c.Ran:
		c.Skipped = ""
	case c.Skipped == "" || c.Skipped == NothingOwed:
		c.Skipped = o.Skipped
	}
}

// NothingOwed is why the store check did not run on a run that delivered
// everything it owed by the drain's end.
const NothingOwed = "nothing was owed after the drain"

// WatchersSummary counts the watching phones' deliveries apart (part of
// the figures above): Wildfire's method checks delivery by a watcher.
type WatchersSummary struct {
	Users    int   `json:"users"`
	Expected int64 `json:"expected"`
	Received int64 `json:"received"`
}

// RoomsSummary is the chatrooms' account. A chatroom keeps no history and
// may drop by design, so what its members missed is a rate, not a loss.
type RoomsSummary struct {
	Expected int64 `json:"expected"` // members present when each acknowledged message was sent
	// Received are the members' deliveries of acknowledged messages.
	Received int64 `json:"received"`
	// OfUnanswered and Unexpected are deliveries of sends the server did
	// not answer in time, and of sends that failed: in neither figure above.
	OfUnanswered int64   `json:"of_unanswered"`
	Unexpected   int64   `json:"unexpected"`
	Missed       int64   `json:"missed"`
	MissRate     float64 `json:"miss_rate"`
	BeforeJoin   int64   `json:"before_join"` // arrived at members who joined after it was sent
	// Integrity is the share of those expected that arrived, (expected −
	// missed) / expected; null when none was expected.
	Integrity *float64 `json:"integrity"`
}

// SetRate computes the miss rate and the integrity.
func (r *RoomsSummary) SetRate() {
	r.MissRate, r.Integrity = 0, nil
	if r.Expected > 0 {
		r.MissRate = math.Round(float64(r.Missed)/float64(r.Expected)*1e6) / 1e6
		r.Integrity = new(IntegrityOf(r.Expected, r.Missed))
	}
}

// IntegrityOf is the share of expected deliveries that were not lost, to
// six decimals (0 when none was expected).
func IntegrityOf(expected, lost int64) float64 {
	if expected <= 0 {
		return 0
	}
	return math.Round(float64(expected-lost)/float64(expected)*1e6) / 1e6
}

// DeliveriesByClass is one class of the workload: its arrivals, and how
// its senders paced them, which decides the order a server keeps.
type DeliveriesByClass struct {
	Class int    `json:"class"` // 1 for the workload's first class
	Kind  string `json:"kind"`  // pairs, groups, chatroom, integration
	// InFlight is how many messages a sender had unacknowledged at most:
	// 1 when each send waited for its acknowledgement (open pacing too).
	InFlight int `json:"in_flight"`
	// MaxInFlight is the most a sender had unacknowledged, as it ran: at
	// most InFlight; 0 where nothing was sent.
	MaxInFlight int `json:"max_in_flight"`
	// Expected is the deliveries its acknowledged messages were owed (to
	// users who never got online too: not_attempted is not taken out here);
	// Received the first arrivals of them (pulled or pushed, to the drain's end).
	Expected   int64 `json:"expected"`
	Received   int64 `json:"received"`
	Duplicates int64 `json:"duplicates"`
	OutOfOrder int64 `json:"out_of_order"`
}

// DeliveriesByPopulation is one population of the workload's: what its
// users were owed and got, over every conversation of every class they
// are in, counted as DeliveriesByClass counts them.
type DeliveriesByPopulation struct {
	Population string `json:"population"`
	Users      int    `json:"users"`
	Expected   int64  `json:"expected"`
	Received   int64  `json:"received"`
	Duplicates int64  `json:"duplicates"`
	OutOfOrder int64  `json:"out_of_order"`
}

type DeliveriesByType struct {
	Expected        int64 `json:"expected"`
	Received        int64 `json:"received"`
	Duplicates      int64 `json:"duplicates"`
	OutOfOrder      int64 `json:"out_of_order"`
	Lost            int64 `json:"lost"`
	LostNeverStored int64 `json:"lost_never_stored"`
	Late            int64 `json:"late"`
	Unchecked       int64 `json:"unchecked"`
	NotAttempted    int64 `json:"not_attempted"`
	PushedAfterPull int64 `json:"pushed_after_pull"`
}

type LatencySummary struct {
	Count    int64   `json:"count"`
	Negative int64   `json:"negative"` // received before created: the clocks disagree
	Avg      float64 `json:"avg"`
	P50      float64 `json:"p50"`
	P95      float64 `json:"p95"`
	P99      float64 `json:"p99"`
	Max      float64 `json:"max"`
}

type GeneratorSummary struct {
	VUs          int         `json:"vus"`
	UserRanges   [][2]uint32 `json:"user_ranges"` // [first, last+1) of the users each VU held
	PullRequests int64       `json:"pull_requests"`
	// GapPullRequests are the pulls among them for a seq missing below one
	// that arrived, half a second after it was noticed.
	GapPullRequests int64 `json:"gap_pull_requests"`
	HeartbeatsSent  int64 `json:"heartbeats_sent"`
	// HeartbeatsSkipped are ping periods in which a connection pinged after
	// silence (Wildfire's) had sent other packets, so needed no ping.
	HeartbeatsSkipped int64 `json:"heartbeats_skipped"`
	// The k6 process's goroutines, one count every GoroutinesEverySeconds
	// from GoroutinesStartMs (one process's: not merged over segments).
	GoroutinesStartMs      int64   `json:"goroutines_start_ms"`
	GoroutinesEverySeconds int     `json:"goroutines_every_seconds"`
	Goroutines             []int32 `json:"goroutines"`
	// Processes are the generator's processes, one a segment of a split
	// run, each with the cores it could use and how far its CPU quota held
	// it back over the run.
	Processes []GeneratorProcess `json:"processes"`
}

// GeneratorProcess is one process of the generator over its run.
type GeneratorProcess struct {
	Segment    string  `json:"segment"`     // its segment's interval ("1/4:1/2"), "0:1" for a whole run
	Host       string  `json:"host"`        // the machine or pod it ran on
	CPUSeconds float64 `json:"cpu_seconds"` // user and system time over the run
	Cores      float64 `json:"cores"`       // the cores it could use: the least of its GOMAXPROCS, CPU affinity and CPU quota
	Bound      string  `json:"bound"`       // which of them that is, in words
	QuotaCores float64 `json:"quota_cores"` // its cgroup's CPU quota in cores (0: none)
	// Throttled is the share of its quota's scheduling periods in which the
	// quota held it back (0..1; 0 without a quota).
	Throttled float64 `json:"throttled"`
}

// QuotaText names the processes their CPU quota held back in at least a
// tenth of their periods, or "".
func QuotaText(g GeneratorSummary) string {
	var held []string
	for _, p := range g.Processes {
		if p.QuotaCores > 0 && p.Throttled >= 0.1 {
			held = append(held, fmt.Sprintf("segment %s on %s (%.2f of a core) in %.0f %% of its periods", p.Segment, p.Host, p.QuotaCores, 100*p.Throttled))
		}
	}
	if len(held) == 0 {
		return ""
	}
	return "the generator's CPU quota held it back: " + strings.Join(held, ", ") + "; raise its CPU limit (a pod's resources.limits.cpu)"
}

// TimedText is ", 200 at their time on the run's timeline" where users
// logged in at a time of the plan's (loginAt, from the start of sending,
// which may be after the sending ended), else "".
func TimedText(u UsersSummary) string {
	if u.TimedLogins == 0 && u.PlannedTimed == 0 {
		return ""
	}
	return fmt.Sprintf(", %d at their time on the run's timeline", u.TimedLogins)
}

// Table renders the seed's result table.
func (s Summary) Table() string {
	var b strings.Builder
	row := func(k, v string) { fmt.Fprintf(&b, "| %-22s | %s |\n", k, v) }
	fmt.Fprintf(&b, "\nimbench %s on %s (%s), run %s\n\n", s.Scenario, s.Target, s.TargetAPI, s.RunID)
	row("Parameter/Result", "Value")
	b.WriteString("|------------------------|-------|\n")
	if s.Purpose != "" {
		row("Test Purpose", s.Purpose)
	}
	u := s.Users
	row("User Count", fmt.Sprintf("%d users, %d logged in at once (peak online %d)%s, %d logged in late",
		u.Registered, u.Logins-u.LateLogins-u.TimedLogins, u.OnlinePeak, TimedText(u), u.LateLogins))
	var sizes []string
	for size, n := range s.Groups.BySize {
		sizes = append(sizes, fmt.Sprintf("%d of %s members", n, size))
	}
	sort.Strings(sizes)
	row("Group Count & Size", GroupsText(s.Groups.Count, sizes, s.Groups.Friendships))
	row("Message Rate", fmt.Sprintf("Peak %d msg/s, average %.1f msg/s (%s)", s.Messages.PeakPerSecond, s.Messages.AvgPerSecond, PlannedText(s.Messages)+PaceText(s.Messages)))
	d := s.Deliveries
	row("Total Messages", fmt.Sprintf("%d sent, %d acknowledged, %d failed%s%s; %d deliveries (%d pushed, %d pulled)",
		s.Messages.Sent, s.Messages.Acked, s.Messages.SendFailed, UnansweredText(s.Messages, d), UnsentText(s.Messages), d.Received, d.Pushed, d.ByPull))
	if t := UnansweredRow(s.Messages, d); t != "" {
		row("Unanswered sends", t)
	}
	row("Message Integrity", IntegrityText(s))
	if t := StoreCheckText(d.StoreCheck); t != "" {
		row("Store check", t)
	}
	row("Duplicates / Out of order", fmt.Sprintf("%d / %d", d.Duplicates, d.OutOfOrder))
	if t := OrderText(d.ByClass); t != "" {
		row("Order by pacing", t)
	}
	if t := PopulationsText(d.ByPopulation); t != "" {
		row("By population", t)
	}
	if d.PushedAfterPull > 0 {
		row("Pushed after pull", fmt.Sprintf("%d (pulled after a seq gap or at login, then pushed as well: the push was late; not duplicates)", d.PushedAfterPull))
	}
	if u.NeverOnline > 0 {
		row("Never online", fmt.Sprintf("%d users never online (every login failed), %d deliveries not attempted (in neither expected nor lost)",
			u.NeverOnline, d.NotAttempted))
	}
	if r := d.Rooms; r != nil {
		row("Chatrooms", fmt.Sprintf("%s; %d sent before a member joined", RoomsText(r), r.BeforeJoin))
	}
	e := s.Latency.E2E
	row("Average Latency", fmt.Sprintf("%.3f seconds", e.Avg/1000))
	row("Maximum Latency", fmt.Sprintf("%.3f seconds", e.Max/1000))
	row("E2E p50 / p95 / p99", fmt.Sprintf("%.1f / %.1f / %.1f ms over %s", e.P50, e.P95, e.P99, LatencyCountText(e.Count, d)))
	a := s.Latency.Ack
	row("Ack avg / p99 / max", fmt.Sprintf("%.1f / %.1f / %.1f ms", a.Avg, a.P99, a.Max))
	row("Connections", ConnectionsText(u, strconv.FormatInt))
	if t := LoginFailuresText(u); t != "" {
		row("Login failures", t)
	}
	if s.Logins != nil {
		row("Login Cost", LoginText(s.Logins))
	}
	if t := OutageText(s.Outages); t != "" {
		row("Outages", t)
	}
	if st := s.SeedTable(); st != nil {
		b.WriteString(st.String())
	}
	return b.String()
}

// LatencyCountText says which deliveries the e2e latency counts: those
// pushed and those pulled after a gap or a reconnect (not a login's sync,
// nor a return's from a spell away).
func LatencyCountText(n int64, d DeliveriesSummary) string {
	if pulled := d.ByGapPull + d.ByReconnectPull; pulled > 0 && n == d.Pushed+pulled {
		return fmt.Sprintf("%d deliveries (%d pushed, %d pulled after a gap or reconnect)", n, d.Pushed, pulled)
	}
	return fmt.Sprintf("%d deliveries", n)
}

// Pace is the share of the plan's pace the run kept, 0..1, and whether it
// has one: the slowest open class's (ClassSends.Pace), a closed class
// beside it judged by its own finish. A run that sent at 80 % of the
// rate planned has 0.8. A summary without classes is judged whole, as
// one open class.
func (m MessagesSummary) Pace() (float64, bool) {
	p, _, ok := m.slowestClass()
	return p, ok
}

// slowestClass is the pace of the open class that kept least of it, and
// that class (0: the run judged whole).
func (m MessagesSummary) slowestClass() (pace float64, class int, ok bool) {
	if len(m.ByClass) == 0 {
		whole := ClassSends{Open: !m.Closed && m.PlannedRate > 0, PlannedSeconds: m.PlannedSeconds, Sent: m.Sent,
			Unsent: m.Unsent, FirstSendMs: m.FirstSendMs, LastSendMs: m.LastSendMs}
		pace, ok = whole.Pace()
		return pace, 0, ok && m.Sent > 0
	}
	for _, c := range m.ByClass {
		if p, has := c.Pace(); has && (!ok || p < pace) {
			pace, class, ok = p, c.Class, true
		}
	}
	return pace, class, ok
}

// PaceText is ", sent at 82 % of the plan's pace" where the run fell
// behind it by more than a percent, and how far behind the plan's own
// seconds the sends fell at worst where that was more than a message,
// else "".
func PaceText(m MessagesSummary) string {
	var t string
	if p, class, ok := m.slowestClass(); ok && p < 0.99 {
		t = fmt.Sprintf(", sent at %.0f %% of the plan's pace", 100*p)
		if len(m.ByClass) > 1 {
			t += fmt.Sprintf(" (class %d)", class)
		}
	}
	if most, at := m.BehindPlan(); most > 1 {
		t += fmt.Sprintf(", up to %d messages behind the plan (second %d)", most, at+1)
	}
	return t
}

// BehindPlan is the most messages the open classes' sends were behind
// what the plan had due (planned_per_second, summed from the start) at the end of a
// second, and that second (from 0).
func (m MessagesSummary) BehindPlan() (most int64, at int) {
	sends := m.PerSecond
	if m.Closed {
		sends = m.OpenPerSecond
	}
	var planned, sent int64
	for i := range m.PlannedPerSecond {
		planned += m.PlannedPerSecond[i]
		if i < len(sends) {
			sent += sends[i]
		}
		if planned-sent > most {
			most, at = planned-sent, i
		}
	}
	return most, at
}

// PlannedText says what rate was planned, and how it was paced.
func PlannedText(m MessagesSummary) string {
	s := plannedRateText(m)
	if m.Burst {
		s += ", each second's messages in one burst"
	}
	return s
}

func plannedRateText(m MessagesSummary) string {
	switch {
	case m.Planned == 0:
		return "no messages planned"
	case m.Closed && m.PlannedRate > 0:
		return fmt.Sprintf("planned %s msg/s, and closed classes as fast as acknowledged", RateNum(m.PlannedRate))
	case m.Closed:
		return "as fast as acknowledged"
	}
	if peak := slices.Max(append([]int64{0}, m.PlannedPerSecond...)); len(m.PlannedPerSecond) > 1 && math.Abs(float64(peak)-m.PlannedRate) > max(1, m.PlannedRate/10) {
		return fmt.Sprintf("planned %d msg/s in its busiest second", peak) // classes on a timeline, a ramp: their rates never add up at once
	}
	return fmt.Sprintf("planned %s msg/s", RateNum(m.PlannedRate))
}

// RateNum is a rate as planned: to two decimals at most, with no trailing
// zeros (4.5, 40, 0.25).
func RateNum(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// LoginFailuresText says which login attempts failed and what became of
// them, in a line ("" when none failed).
func LoginFailuresText(u UsersSummary) string {
	n := u.LoginFailures.Total()
	if n == 0 {
		return ""
	}
	s := fmt.Sprintf("%d failed (%s); %d tried again", n, u.LoginFailures.Text(), u.LoginRetries.Total())
	if u.OnlineAfterRetry > 0 {
		s += fmt.Sprintf(", %d users online after a retry", u.OnlineAfterRetry)
	}
	if u.NeverOnline > 0 {
		s += fmt.Sprintf(", %d never online", u.NeverOnline)
	}
	return s
}

// IntegrityText says how complete delivery was, as the seed says it.
func IntegrityText(s Summary) string {
	d := s.Deliveries
	switch {
	case d.Expected == 0 && d.Rooms != nil:
		return "n/a: no one-to-one or group delivery was expected; chatrooms: " + RoomsText(d.Rooms)
	case d.Expected == 0 && s.Messages.Sent == 0:
		return "n/a (no message was sent)"
	case d.Expected == 0:
		return "n/a (no deliveries were expected)"
	case d.Undelivered() == 0 && d.Corrupted == 0:
		return fmt.Sprintf("100%% (all %d expected deliveries arrived)%s", d.Expected, notAttemptedText(s))
	}
	return fmt.Sprintf("%.4f%% (%s, %d corrupted)%s", s.Integrity*100, LossText(d, strconv.FormatInt), d.Corrupted, notAttemptedText(s))
}

// LossText says what became of the expected deliveries that did not arrive:
// lost, with what the store check found of them (acknowledged by the
// server and never stored), late (the server holds them) and unchecked
// (the server did not answer their read). num formats a count.
func LossText(d DeliveriesSummary, num func(int64, int) string) string {
	n := func(v int64) string { return num(v, 10) }
	out := fmt.Sprintf("%s of %s expected deliveries lost", n(d.Lost), n(d.Expected))
	c := d.StoreCheck
	if c != nil && c.Ran && d.Lost > 0 {
		switch {
		case d.LostNeverStored == d.Lost:
			out += fmt.Sprintf(": the server acknowledged them and never stored them (it holds none of those %s messages)", n(int64(c.MessagesNeverStored)))
		case d.LostNeverStored > 0:
			out += fmt.Sprintf(" (%s acknowledged by the server and never stored, %s not read back: %s)", n(d.LostNeverStored), n(d.Lost-d.LostNeverStored), c.notRead())
		default:
			out += fmt.Sprintf(" (not read back: %s)", c.notRead())
		}
	}
	if d.Late > 0 {
		out += fmt.Sprintf(", %s late: the server holds their messages but had not delivered them when the drain ended", n(d.Late))
	}
	if d.Unchecked > 0 {
		out += fmt.Sprintf(", %s unchecked: not delivered when the drain ended, and %s; whether it holds them is not known", n(d.Unchecked), UncheckedWhy(c))
	}
	return out
}

// StoreCheckText is the store check's row: what it read back after the
// drain and what the server left unanswered ("" when it did not run).
func StoreCheckText(c *StoreCheckSummary) string {
	if c == nil || !c.Ran {
		return ""
	}
	out := fmt.Sprintf("%d deliveries owed after the drain: read %d of %d receivers' stores in %.1f s; %d messages held, %d never stored",
		c.Owed, c.Reads, c.Readers, c.Seconds, c.MessagesHeld, c.MessagesNeverStored)
	if c.Retries > 0 || c.ReadsFailed > 0 {
		out += fmt.Sprintf("; %d reads tried again, %d unanswered after %d tries", c.Retries, c.ReadsFailed, c.Tries)
	}
	return out
}

// notRead says why lost deliveries were not read back: the check lists
// only deliveries between users of this process, up to its budget.
func (c *StoreCheckSummary) notRead() string {
	if c.NotListed {
		return "more were owed than the check lists"
	}
	return "their senders or receivers ran in another process"
}

// RoomsText is the chatrooms' own integrity: deliveries to the members
// present when each message was sent, and what they missed.
func RoomsText(r *RoomsSummary) string {
	if r.Integrity == nil {
		return "no delivery to a member present was expected"
	}
	return fmt.Sprintf("%.4g%% (%d of %d deliveries to members present at sending arrived, %.2f%% missed: %d)",
		*r.Integrity*100, r.Expected-r.Missed, r.Expected, r.MissRate*100, r.Missed)
}

// OrderText says, class by class, whether the order held and how the
// class's senders paced ("" for fewer than two classes, whose order the
// totals say): "in order (5000 deliveries) when each send waits for its
// ack (class 1, pairs); 41 of 5000 out of order with 16 in flight (class
// 2, pairs)".
func OrderText(classes []DeliveriesByClass) string {
	if len(classes) < 2 {
		return ""
	}
	parts := make([]string, 0, len(classes))
	for _, c := range classes {
		var b strings.Builder
		if c.OutOfOrder == 0 {
			fmt.Fprintf(&b, "in order (%d deliveries)", c.Received)
		} else {
			fmt.Fprintf(&b, "%d of %d out of order", c.OutOfOrder, c.Received)
		}
		switch seen := c.MaxInFlight; {
		case c.InFlight <= 1:
			b.WriteString(" when each send waits for its ack")
		case seen > 0 && seen < c.InFlight:
			fmt.Fprintf(&b, " with up to %d in flight (%d allowed)", seen, c.InFlight)
		default:
			fmt.Fprintf(&b, " with %d in flight", c.InFlight)
		}
		if c.Duplicates > 0 {
			fmt.Fprintf(&b, ", %d duplicates", c.Duplicates)
		}
		fmt.Fprintf(&b, " (class %d, %s)", c.Class, c.Kind)
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "; ")
}

// PopulationsText says what each population's users got of what they were
// owed ("students 4,642 of 4,642; teachers 404 of 404"), with its
// duplicates and disorder where there were any; "" without populations.
func PopulationsText(pops []DeliveriesByPopulation) string {
	parts := make([]string, 0, len(pops))
	for _, p := range pops {
		t := fmt.Sprintf("%s (%d users) %s of %s", p.Population, p.Users, Grouped(p.Received), Grouped(p.Expected))
		if p.Duplicates+p.OutOfOrder > 0 {
			t += fmt.Sprintf(", %d duplicates, %d out of order", p.Duplicates, p.OutOfOrder)
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, "; ")
}

// notAttemptedText says what the integrity leaves out: deliveries to users
// who never got online.
func notAttemptedText(s Summary) string {
	if s.Users.NeverOnline == 0 {
		return ""
	}
	return fmt.Sprintf("; not counted: %d deliveries to the %d users never online", s.Deliveries.NotAttempted, s.Users.NeverOnline)
}

// LostDelivery names one expected delivery that never arrived: plan indexes
// of receiver, sender and conversation, and the sender's message number.
type LostDelivery struct {
	Receiver uint32 `json:"receiver"`
	Sender   uint32 `json:"sender"`
	Conv     uint32 `json:"conv"`
	N        uint32 `json:"n"`
}

// UnansweredText is ", N unanswered …" when sends got no answer within the
// timeout, with how many deliveries of them arrived: a slow server, not a
// failed send, when they did.
func UnansweredText(m MessagesSummary, d DeliveriesSummary) string {
	if m.Unanswered == 0 {
		return ""
	}
	return fmt.Sprintf(", %d unanswered within the timeout (%d deliveries of them arrived: stored, answered late or never)", m.Unanswered, d.OfUnanswered)
}

// UnansweredRow is the verdict on unanswered sends, "" when every send
// was answered: how many of how many, and that the server did not answer
// in time, which no delivery count makes up for.
func UnansweredRow(m MessagesSummary, d DeliveriesSummary) string {
	if m.Unanswered == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d sends got no answer within the timeout: the server did not answer in time (overloaded, or gone); %d deliveries of them arrived",
		m.Unanswered, m.Sent, d.OfUnanswered)
}

// UnsentText is ", N not sent …" when the send phase ended with messages
// still to send: the planned pace was not kept, which is not a failure of
// the sends that were made.
func UnsentText(m MessagesSummary) string {
	if m.Unsent == 0 {
		return ""
	}
	return fmt.Sprintf(", %d not sent (the send phase ended first: the planned pace was not kept)", m.Unsent)
}

// GroupsText is the groups row: "3 groups (2 of 5 members, 1 of 40
// members), 12 friendships", "no groups, 2 friendships".
func GroupsText(count int, sizes []string, friendships int) string {
	groups := "no groups"
	switch {
	case count == 1:
		groups = "1 group"
	case count > 1:
		groups = Grouped(int64(count)) + " groups"
	}
	if len(sizes) > 0 {
		groups += " (" + strings.Join(sizes, ", ") + ")"
	}
	switch friendships {
	case 0:
		return groups + ", no friendships"
	case 1:
		return groups + ", 1 friendship"
	}
	return groups + ", " + Grouped(int64(friendships)) + " friendships"
}

// DropCauses are why a connection ended, as summary.json counts them.
var DropCauses = []string{"server_closed", "heartbeat", "kicked", "read_error"}

var dropWords = map[string]string{"server_closed": "closed by the server", "heartbeat": "silent past the read timeout (heartbeat)",
	"kicked": "kicked", "read_error": "read errors"}

// ConnectionsText is the connections row: "0 connect errors, 3 disconnects
// (2 closed by the server, 1 kicked), 3 reconnects".
func ConnectionsText(u UsersSummary, num func(int64, int) string) string {
	n := func(v int64) string { return num(v, 10) }
	drops := n(u.Disconnects) + " disconnects"
	var causes []string
	for _, c := range DropCauses {
		if v := u.DisconnectCauses[c]; v > 0 {
			causes = append(causes, n(v)+" "+dropWords[c])
		}
	}
	if len(causes) > 0 {
		drops += " (" + strings.Join(causes, ", ") + ")"
	}
	return fmt.Sprintf("%s connect errors, %s, %s reconnects", n(u.ConnectErrors), drops, n(u.Reconnects))
}
