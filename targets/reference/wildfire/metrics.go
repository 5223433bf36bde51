package wildfire

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// Metrics are the core's series plus Wildfire's own (the real server
// exports none, wildfire.md §11): its MQTT connections and online users,
// requests by topic and their refusals by code, MN notifies, pulls, and the
// feeds: messages filed (by how: pushed with an MN, stored without one by
// the skip-push fault or an ended connection, or for a user offline) and
// messages held.
type Metrics struct {
	*core.Metrics

	requests *prometheus.CounterVec
	refused  *prometheus.CounterVec
	served   map[string]prometheus.Counter // requests by topic, resolved once
	notifies [feedTypes]prometheus.Counter
	pulls    [feedTypes]prometheus.Counter
	filings  [feedTypes][viaCount]prometheus.Counter
	pings    prometheus.Counter
	kicks    prometheus.Counter
	// adminTimeouts: admin writes done and answered 249 (AdminTimeoutEvery).
	adminTimeouts prometheus.Counter
	inBytes       prometheus.Counter

	rmu     sync.RWMutex
	refusal map[refusalKey]prometheus.Counter // refused's series, resolved once each

	conns atomic.Int64 // logged-in MQTT connections
	held  atomic.Int64 // messages in feeds
	front *FrontEnd
}

// How a message came into a feed.
const (
	viaPush    = iota // a push, told with an MN
	viaStore          // without an MN: skipped push, or the connection ended
	viaOffline        // for a user offline (the core's feed hook)
	viaCount
)

var (
	feedLabel = [feedTypes]string{feedNormal: "normal", feedRoom: "chatroom"}
	viaLabel  = [viaCount]string{viaPush: "push", viaStore: "store", viaOffline: "offline"}
)

func topicLabel(t string) string {
	if t == topicOther {
		return "other"
	}
	return t
}

// NewMetrics registers Wildfire's series on m's registry.
func NewMetrics(m *core.Metrics) *Metrics {
	counter := func(name, help string) prometheus.Counter {
		c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
		m.Registry.MustRegister(c)
		return c
	}
	vec := func(name, help string, labels ...string) *prometheus.CounterVec {
		v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
		m.Registry.MustRegister(v)
		return v
	}
	wm := &Metrics{Metrics: m,
		requests: vec("imbench_target_wildfire_publishes_total", "QoS 1 requests (PUBLISH) received, by IM topic (other: a topic not served).", "topic"),
		refused:  vec("imbench_target_wildfire_publish_errors_total", "Requests answered with a code other than 0 (and 255), by topic and code.", "topic", "code"),
		pings:    counter("imbench_target_wildfire_pings_total", "PINGREQs received."),
		kicks:    counter("imbench_target_wildfire_kicks_total", "Connections kicked by a newer login of their user and platform class (ROFL)."),
		adminTimeouts: counter("imbench_target_fault_admin_timeouts_total",
			"Admin writes (user destroys, group dismissals and creations, member adds) done and answered 249 timeout (-wildfire-admin-timeout-every)."),
		inBytes: counter("imbench_target_wildfire_read_bytes_total", "Bytes read from MQTT connections."),
		served:  map[string]prometheus.Counter{},
		refusal: map[refusalKey]prometheus.Counter{},
	}
	for _, t := range []string{wire.TopicSendMessage, wire.TopicPullMessage, wire.TopicJoinChatroom, wire.TopicQuitChatroom, wire.TopicGetUserSetting, topicOther} {
		wm.served[t] = wm.requests.WithLabelValues(topicLabel(t))
	}
	notifies := vec("imbench_target_wildfire_notifies_total", "MN pushes queued to connections, by feed type.", "type")
	pulls := vec("imbench_target_wildfire_pulls_total", "MP requests answered, by feed type.", "type")
	filed := vec("imbench_target_wildfire_feed_filed_total", "Messages filed in users' feeds, by feed type and how.", "type", "via")
	for t := range feedTypes {
		wm.notifies[t] = notifies.WithLabelValues(feedLabel[t])
		wm.pulls[t] = pulls.WithLabelValues(feedLabel[t])
		for v := range viaCount {
			wm.filings[t][v] = filed.WithLabelValues(feedLabel[t], viaLabel[v])
		}
	}
	m.Registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "imbench_target_wildfire_mqtt_connections", Help: "Logged-in Wildfire MQTT connections."},
			func() float64 { return float64(wm.conns.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "imbench_target_wildfire_online_users", Help: "Distinct users with a Wildfire MQTT connection."},
			func() float64 {
				if wm.front == nil {
					return 0
				}
				return float64(wm.front.OnlineUsers())
			}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "imbench_target_wildfire_feed_messages", Help: "Messages held in users' feeds, not yet trimmed by a pull."},
			func() float64 { return float64(wm.held.Load()) }))
	return wm
}

func (m *Metrics) request(topic string) { m.served[topic].Inc() }

type refusalKey struct {
	topic string
	code  wire.ErrorCode
}

// answered counts a refusal; its series is looked up without allocating
// once made (a client over the rate limit makes many).
func (m *Metrics) answered(topic string, code wire.ErrorCode) {
	if code.OK() {
		return
	}
	k := refusalKey{topic, code}
	m.rmu.RLock()
	c := m.refusal[k]
	m.rmu.RUnlock()
	if c == nil {
		c = m.refused.WithLabelValues(topicLabel(topic), strconv.Itoa(int(code)))
		m.rmu.Lock()
		m.refusal[k] = c
		m.rmu.Unlock()
	}
	c.Inc()
}

func (m *Metrics) filed(t, via int) {
	m.filings[t][via].Inc()
	m.held.Add(1)
}

func (m *Metrics) trimmed(n int) { m.held.Add(-int64(n)) }
