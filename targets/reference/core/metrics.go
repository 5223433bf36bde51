package core

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the target's Prometheus series. Where OpenIM has a metric for
// the same thing, the name is OpenIM's (openim.md §4.2); the rest, and every
// fault counter, are imbench_target_*.
type Metrics struct {
	Registry *prometheus.Registry

	onlineUsers  prometheus.Gauge
	connections  prometheus.Gauge
	userLogins   prometheus.Counter
	userRegister prometheus.Counter
	singleOK     prometheus.Counter
	singleFailed prometheus.Counter
	groupOK      prometheus.Counter
	groupFailed  prometheus.Counter
	longTimePush prometheus.Counter
	stored       prometheus.Counter
	pulled       prometheus.Counter
	pushes       prometheus.Counter
	wsLogins     *prometheus.CounterVec
	hbTimeouts   prometheus.Counter
	APICount     *prometheus.CounterVec
	HTTPCount    *prometheus.CounterVec

	faultLostMsgs    *prometheus.CounterVec
	faultLostDeliv   *prometheus.CounterVec
	faultSkipped     *prometheus.CounterVec
	faultDuplicated  *prometheus.CounterVec
	faultReordered   *prometheus.CounterVec
	faultDelayed     *prometheus.CounterVec
	faultDisconnects prometheus.Counter
}

// NewMetrics registers every series in a fresh registry, with the Go and
// process collectors.
func NewMetrics() *Metrics {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	f := promFactory{r}
	kind := []string{"conv_type"}
	return &Metrics{
		Registry:     r,
		onlineUsers:  f.gauge("online_user_num", "Distinct users with at least one connection."),
		connections:  f.gauge("imbench_target_connections", "Open WebSocket connections."),
		userLogins:   f.counter("user_login_total", "Admin token grants (what OpenIM v3.8.3 counts under this name)."),
		userRegister: f.counter("user_register_total", "Users registered."),
		singleOK:     f.counter("single_chat_msg_process_success_total", "One-to-one messages accepted."),
		singleFailed: f.counter("single_chat_msg_process_failed_total", "One-to-one messages refused."),
		groupOK:      f.counter("group_chat_msg_process_success_total", "Group messages accepted."),
		groupFailed:  f.counter("group_chat_msg_process_failed_total", "Group messages refused."),
		longTimePush: f.counter("msg_long_time_push_total", "Pushes written more than 10 s after the message's send time."),
		stored:       f.counter("imbench_target_messages_stored_total", "Messages stored (seq assigned)."),
		pulled:       f.counter("imbench_target_messages_pulled_total", "Messages returned by pulls."),
		pushes:       f.counter("imbench_target_pushes_total", "Push frames written to connections."),
		wsLogins:     f.counterVec("imbench_target_ws_logins_total", "WebSocket logins by result.", []string{"result"}),
		hbTimeouts:   f.counter("imbench_target_heartbeat_timeouts_total", "Connections closed because the client stayed silent past the 30 s read deadline."),
		APICount:     f.counterVec("api_count", "REST calls by path and OpenIM errCode.", []string{"path", "method", "code"}),
		HTTPCount:    f.counterVec("http_count", "REST calls by path and HTTP status.", []string{"path", "method", "status"}),

		faultLostMsgs:    f.counterVec("imbench_target_fault_lost_messages_total", "Messages acknowledged but dropped (lose fault).", kind),
		faultLostDeliv:   f.counterVec("imbench_target_fault_lost_deliveries_total", "Deliveries those lost messages owed: recipients other than the sender.", kind),
		faultSkipped:     f.counterVec("imbench_target_fault_skipped_pushes_total", "Pushes not sent although the message was stored (skip-push fault).", kind),
		faultDuplicated:  f.counterVec("imbench_target_fault_duplicated_pushes_total", "Pushes sent a second time (duplicate fault).", kind),
		faultReordered:   f.counterVec("imbench_target_fault_reordered_pushes_total", "Pushes overtaken by the sender's next message in the conversation (reorder fault).", kind),
		faultDelayed:     f.counterVec("imbench_target_fault_delayed_pushes_total", "Pushes held back by the added delay.", kind),
		faultDisconnects: f.counter("imbench_target_fault_disconnects_total", "Connections dropped on purpose (disconnect fault)."),
	}
}

func (m *Metrics) msgSucceeded(kind string) {
	if kind == "group" {
		m.groupOK.Inc()
	} else {
		m.singleOK.Inc()
	}
}

func (m *Metrics) msgFailed(kind string) {
	if kind == "group" {
		m.groupFailed.Inc()
	} else {
		m.singleFailed.Inc()
	}
}

func (m *Metrics) lost(kind string, deliveries int) {
	m.faultLostMsgs.WithLabelValues(kind).Inc()
	m.faultLostDeliv.WithLabelValues(kind).Add(float64(deliveries))
}

// PushWritten counts a written push frame, and a late one as OpenIM does.
func (m *Metrics) PushWritten(p *Push, nowMs int64) {
	m.pushes.Inc()
	if nowMs-p.Msg.SendTime > 10_000 {
		m.longTimePush.Inc()
	}
}

// Login counts a WebSocket login attempt.
func (m *Metrics) Login(result string) { m.wsLogins.WithLabelValues(result).Inc() }

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

func (f promFactory) counterVec(name, help string, labels []string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.r.MustRegister(c)
	// Export every conversation kind from the start, so a zero is a zero and
	// not a missing series.
	if len(labels) == 1 && labels[0] == "conv_type" {
		c.WithLabelValues("single")
		c.WithLabelValues("group")
	}
	return c
}
