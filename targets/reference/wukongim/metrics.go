package wukongim

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/imbench/imbench/targets/reference/core"
)

// Metrics are the core's series plus WuKongIM's: the packet counters a real
// v2 server's manager /metrics has and wukongim.md §13 found trustworthy,
// its connection and online-user levels (as gauges, which the real server's
// are not), and this front end's own count of RECVs sent again. The atomics
// feed /varz.
type Metrics struct {
	*core.Metrics

	sendPackets    prometheus.Counter
	recvackPackets prometheus.Counter
	pings          prometheus.Counter
	pongs          prometheus.Counter
	retries        prometheus.Counter

	front *FrontEnd

	conns      atomic.Int64 // logged-in WKProto connections
	inMsgs     atomic.Int64 // SENDs received
	outMsgs    atomic.Int64 // RECVs written, sent again ones included
	inBytes    atomic.Int64 // read from connections
	outBytes   atomic.Int64 // written to connections
	retryQueue atomic.Int64 // RECVs awaiting their RECVACK
}

// NewMetrics registers WuKongIM's series on m's registry.
func NewMetrics(m *core.Metrics) *Metrics {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	}
	wm := &Metrics{Metrics: m,
		sendPackets:    counter("app_send_packet_count_total", "SEND packets received."),
		recvackPackets: counter("app_recvack_packet_count_total", "RECVACK packets received."),
		pings:          counter("app_ping_count_total", "PING packets received."),
		pongs:          counter("app_pong_count_total", "PONG packets sent."),
		retries:        counter("imbench_target_wukongim_recv_retries_total", "RECVs sent again for want of a RECVACK (messageRetry)."),
	}
	m.Registry.MustRegister(wm.sendPackets, wm.recvackPackets, wm.pings, wm.pongs, wm.retries,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "app_conn_count", Help: "Logged-in WKProto connections of this process."},
			func() float64 { return float64(wm.conns.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "app_online_user_count", Help: "Distinct users with a WKProto connection to this process."},
			func() float64 {
				if wm.front == nil {
					return 0
				}
				return float64(wm.front.onlineUsers())
			}))
	return wm
}
