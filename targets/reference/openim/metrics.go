package openim

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/imbench/imbench/targets/reference/core"
)

// Metrics are the core's series plus OpenIM's own, under OpenIM's names
// (openim.md §4.2): the core's counts as OpenIM's services name them, and
// what this front end counts itself.
type Metrics struct {
	*core.Metrics

	adminLogins   prometheus.Counter
	longTimePush  prometheus.Counter
	notifications *prometheus.CounterVec
	apiCount      *prometheus.CounterVec
	httpCount     *prometheus.CounterVec
}

// NewMetrics registers OpenIM's series on m's registry.
func NewMetrics(m *core.Metrics) *Metrics {
	om := &Metrics{
		Metrics:      m,
		adminLogins:  prometheus.NewCounter(prometheus.CounterOpts{Name: "user_login_total", Help: "Admin token grants (what OpenIM v3.8.3 counts under this name)."}),
		longTimePush: prometheus.NewCounter(prometheus.CounterOpts{Name: "msg_long_time_push_total", Help: "Pushes written more than 10 s after the message's send time."}),
		apiCount:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "api_count", Help: "REST calls by path and OpenIM errCode."}, []string{"path", "method", "code"}),
		httpCount:    prometheus.NewCounterVec(prometheus.CounterOpts{Name: "http_count", Help: "REST calls by path and HTTP status."}, []string{"path", "method", "status"}),
		notifications: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "imbench_target_openim_notifications_total",
			Help: "Notifications stored as messages (the real server counts them among its chat messages too), by content type."}, []string{"content_type"}),
	}
	m.Registry.MustRegister(om.adminLogins, om.longTimePush, om.apiCount, om.httpCount, om.notifications, countsCollector{&m.Counts})
	return om
}

// countsCollector exports the core's counts under OpenIM's names.
type countsCollector struct{ c *core.Counts }

var (
	onlineDesc     = prometheus.NewDesc("online_user_num", "Distinct users with at least one connection.", nil, nil)
	registeredDesc = prometheus.NewDesc("user_register_total", "Users registered.", nil, nil)
	storedDesc     = prometheus.NewDesc("msg_insert_mongo_success_total", "Inserts into the message store, as msgtransfer counts its inserts into MongoDB (notifications included): "+
		"msgtransfer counts one per batch of messages; the reference target inserts one message at a time, so its count is messages, "+
		"below the messages accepted (*_chat_msg_process_success_total) when acknowledged messages were never stored.", nil, nil)
	msgDescs = []struct {
		kind     core.Kind
		ok, fail *prometheus.Desc
	}{
		{core.Direct,
			prometheus.NewDesc("single_chat_msg_process_success_total", "One-to-one messages accepted.", nil, nil),
			prometheus.NewDesc("single_chat_msg_process_failed_total", "One-to-one messages refused.", nil, nil)},
		{core.Group,
			prometheus.NewDesc("group_chat_msg_process_success_total", "Group messages accepted.", nil, nil),
			prometheus.NewDesc("group_chat_msg_process_failed_total", "Group messages refused.", nil, nil)},
	}
)

func (cc countsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- onlineDesc
	ch <- registeredDesc
	ch <- storedDesc
	for _, d := range msgDescs {
		ch <- d.ok
		ch <- d.fail
	}
}

func (cc countsCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(onlineDesc, prometheus.GaugeValue, float64(cc.c.OnlineUsers()))
	ch <- prometheus.MustNewConstMetric(registeredDesc, prometheus.CounterValue, float64(cc.c.Registered()))
	ch <- prometheus.MustNewConstMetric(storedDesc, prometheus.CounterValue, float64(cc.c.Stored()))
	for _, d := range msgDescs {
		ch <- prometheus.MustNewConstMetric(d.ok, prometheus.CounterValue, float64(cc.c.Accepted(d.kind)))
		ch <- prometheus.MustNewConstMetric(d.fail, prometheus.CounterValue, float64(cc.c.Refused(d.kind)))
	}
}

// pushesWritten counts pushes written at nowMs, of the send times given,
// and the late ones as OpenIM's push service does.
func (m *Metrics) pushesWritten(sendTimes []int64, nowMs int64) {
	m.PushesWritten(len(sendTimes))
	late := 0
	for _, t := range sendTimes {
		if nowMs-t > 10_000 {
			late++
		}
	}
	if late > 0 {
		m.longTimePush.Add(float64(late))
	}
}
