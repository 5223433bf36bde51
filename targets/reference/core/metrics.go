package core

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the target's Prometheus series under imbench's own names
// (imbench_target_*), the same whatever protocol is spoken, and Counts: what
// every IM system counts under names of its own, which a front end exports
// under its system's names on the same Registry.
type Metrics struct {
	Registry *prometheus.Registry
	Counts   Counts

	connections prometheus.Gauge
	stored      prometheus.Counter
	pulled      prometheus.Counter
	pushes      prometheus.Counter
	logins      *prometheus.CounterVec
	hbTimeouts  prometheus.Counter

	faultLostMsgs    [lastKind + 1]prometheus.Counter
	faultLostDeliv   [lastKind + 1]prometheus.Counter
	faultSkipped     [lastKind + 1]prometheus.Counter
	faultDuplicated  [lastKind + 1]prometheus.Counter
	faultReordered   [lastKind + 1]prometheus.Counter
	faultDelayed     [lastKind + 1]prometheus.Counter
	faultLateAcks    [lastKind + 1]prometheus.Counter
	faultDisconnects prometheus.Counter
	faultBatchDrops  prometheus.Counter
	faultStalls      prometheus.Counter
	faultLoginDrops  *prometheus.CounterVec
}

// Counts are the core's counts that each system names its own way.
type Counts struct {
	registered atomic.Uint64
	online     atomic.Int64
	accepted   [lastKind + 1]atomic.Uint64
	refused    [lastKind + 1]atomic.Uint64
	stored     atomic.Uint64
}

// Stored is how many messages were stored (given a seq), notifications
// and chatrooms' included.
func (c *Counts) Stored() uint64 { return c.stored.Load() }

// Registered is how many users were registered.
func (c *Counts) Registered() uint64 { return c.registered.Load() }

// OnlineUsers is how many distinct users have a connection.
func (c *Counts) OnlineUsers() int64 { return c.online.Load() }

// Accepted is how many messages of kind k were accepted.
func (c *Counts) Accepted(k Kind) uint64 { return c.accepted[k].Load() }

// Refused is how many messages of kind k were refused by the conversation
// (unknown user or group, sender not a member).
func (c *Counts) Refused(k Kind) uint64 { return c.refused[k].Load() }

// convType is imbench's conv_type label of a kind, as the generator's
// metrics have it.
var convType = [lastKind + 1]string{Direct: "single", Group: "group", Room: "room"}

// NewMetrics registers every imbench_target_* series in a fresh registry,
// with the Go and process collectors.
func NewMetrics() *Metrics {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	f := promFactory{r}
	m := &Metrics{
		Registry:    r,
		connections: f.gauge("imbench_target_connections", "Open connections."),
		stored:      f.counter("imbench_target_messages_stored_total", "Messages stored (seq assigned); a chatroom's are numbered but not kept."),
		pulled:      f.counter("imbench_target_messages_pulled_total", "Messages returned by pulls."),
		pushes:      f.counter("imbench_target_pushes_total", "Push frames written to connections."),
		logins:      f.counterVec("imbench_target_ws_logins_total", "Logins by result, every protocol and transport alike: OpenIM's WebSocket, WuKongIM's TCP and WebSocket, Wildfire's MQTT (the name is the first front end's).", "result"),
		hbTimeouts:  f.counter("imbench_target_heartbeat_timeouts_total", "Connections closed because the client stayed silent past the read deadline."),

		faultDisconnects: f.counter("imbench_target_fault_disconnects_total", "Connections dropped on purpose (disconnect fault)."),
		faultStalls:      f.counter("imbench_target_fault_unanswered_pulls_total", "Pulls that found messages and were never answered (stall-pulls fault)."),
		faultBatchDrops:  f.counter("imbench_target_fault_batch_drops_total", "Batches of a conversation's acknowledged messages dropped unstored for their size (batch fault; their messages and deliveries count as lost)."),
		faultLoginDrops: f.counterVec("imbench_target_fault_login_drops_total",
			"Logins dropped on purpose (a front end's login-drop fault): drop=closed, the connection closed before the login's answer; drop=silent, the answer never written.", "drop"),
	}
	for _, d := range []string{LoginDropClosed, LoginDropSilent} {
		m.faultLoginDrops.WithLabelValues(d) // exported from the start
	}
	byKind := func(dst *[lastKind + 1]prometheus.Counter, name, help string) {
		v := f.counterVec(name, help, "conv_type")
		for k := Direct; k <= lastKind; k++ {
			dst[k] = v.WithLabelValues(convType[k]) // exported from the start: a zero is a zero, not a missing series
		}
	}
	byKind(&m.faultLostMsgs, "imbench_target_fault_lost_messages_total", "Messages acknowledged but dropped (lose fault, or in a batch dropped for its size; a late-answered one there counts as a late answer instead).")
	byKind(&m.faultLostDeliv, "imbench_target_fault_lost_deliveries_total", "Deliveries those lost messages owed: members other than the sender, each counted once that member has logged in (at the loss, or at its first login after it; never for one that never logs in, as a load client expects it nothing); a chatroom's members when it was sent.")
	byKind(&m.faultSkipped, "imbench_target_fault_skipped_pushes_total", "Pushes not sent although the message was stored (skip-push fault).")
	byKind(&m.faultDuplicated, "imbench_target_fault_duplicated_pushes_total", "Pushes sent a second time (duplicate fault).")
	byKind(&m.faultReordered, "imbench_target_fault_reordered_pushes_total", "Pushes overtaken by the sender's next message in the conversation (reorder fault).")
	byKind(&m.faultDelayed, "imbench_target_fault_delayed_pushes_total", "Pushes held back by the added delay.")
	byKind(&m.faultLateAcks, "imbench_target_fault_late_acks_total", "Messages whose sender was answered late (ack-late fault): stored and pushed, or dropped in a batch for its size (then not lost: its sender, unanswered, expects none of its deliveries).")
	return m
}

func (m *Metrics) setOnline(users, conns int) {
	m.Counts.online.Store(int64(users))
	m.connections.Set(float64(conns))
}

func (m *Metrics) lost(k Kind, deliveries int) {
	m.faultLostMsgs[k].Inc()
	m.faultLostDeliv[k].Add(float64(deliveries))
}

// PushWritten counts a push frame a front end wrote to a connection.
func (m *Metrics) PushWritten() { m.pushes.Inc() }

// PushesWritten counts n pushes written at once.
func (m *Metrics) PushesWritten(n int) { m.pushes.Add(float64(n)) }

// Login counts a login attempt by its result: "ok", or the refusal as the
// front end's protocol codes it.
func (m *Metrics) Login(result string) { m.logins.WithLabelValues(result).Inc() }

// Pulled counts messages a front end returned by pulls of its own (a feed
// it keeps), as the core's Pull counts its own.
func (m *Metrics) Pulled(n int) { m.pulled.Add(float64(n)) }

// The ways a front end's login-drop fault drops a login.
const (
	LoginDropClosed = "closed" // the connection closed before the login's answer
	LoginDropSilent = "silent" // the answer never written, the connection left open
)

// LoginDropped counts a login a front end dropped on purpose, by how
// (LoginDropClosed or LoginDropSilent).
func (m *Metrics) LoginDropped(how string) { m.faultLoginDrops.WithLabelValues(how).Inc() }

// HeartbeatTimeout counts a connection dropped for silence.
func (m *Metrics) HeartbeatTimeout() { m.hbTimeouts.Inc() }

type promFactory struct{ r *prometheus.Registry }

func (f promFactory) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	f.r.MustRegister(g)
	return g
}

func (f promFactory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	f.r.MustRegister(c)
	return c
}

func (f promFactory) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.r.MustRegister(c)
	return c
}
