package reftest

import (
	"log/slog"
	"net"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/wildfire"
)

// WFTarget is a running in-process reference target speaking Wildfire IM.
type WFTarget struct {
	AdminURL string // http://127.0.0.1:port, the signed admin API
	MQTTAddr string // tcp://127.0.0.1:port, MQTT
	Secret   string // the admin API's secret
	Core     *core.Core
	Metrics  *core.Metrics // every series of the process, Wildfire's included
	Front    *wildfire.FrontEnd
}

// WFOptions shape a Wildfire target; zero values keep the front end's
// defaults (the real server's, and the seed's method's rate limit).
type WFOptions struct {
	ReadTimeout    time.Duration // > 0: a connection's idle limit, whatever its keepAlive
	RateLimit      int           // requests per 5 s per clientId and topic
	ConnectTimeout time.Duration // no CONNECT: closed after this
	KickDelay      time.Duration // kick's ROFL to close
	MaxPullBytes   int           // > 0: what one MP answers, in encoded bytes (one message at least)
	AdminTimeout   int           // > 0: every n-th destroy, dismissal, group creation or member add done and answered 249
	AdminLate      time.Duration // > 0: a removal so answered is done this much after its answer
}

// StartWildfire serves a fresh Wildfire target until the test ends, when
// its listeners and every connection they accepted are closed.
func StartWildfire(t testing.TB, faults core.Faults, o WFOptions) *WFTarget {
	t.Helper()
	m := core.NewMetrics()
	log := slog.New(slog.DiscardHandler)
	c, err := core.New(core.Config{Secret: "test-secret", Faults: faults, Log: log}, m)
	if err != nil {
		t.Fatal(err)
	}
	f := wildfire.New(c, m, log)
	f.ReadTimeout = o.ReadTimeout
	if o.RateLimit > 0 {
		f.RateLimit = o.RateLimit
	}
	if o.ConnectTimeout > 0 {
		f.ConnectTimeout = o.ConnectTimeout
	}
	if o.KickDelay > 0 {
		f.KickDelay = o.KickDelay
	}
	if o.MaxPullBytes > 0 {
		f.MaxPullBytes = o.MaxPullBytes
	}
	f.AdminTimeoutEvery, f.AdminTimeoutDelay = o.AdminTimeout, o.AdminLate
	api := httptest.NewServer(f.API())
	t.Cleanup(api.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tl := &trackingListener{Listener: l}
	go f.ServeMQTT(tl)
	t.Cleanup(tl.closeAll)
	return &WFTarget{AdminURL: api.URL, MQTTAddr: "tcp://" + l.Addr().String(), Secret: "test-secret",
		Core: c, Metrics: m, Front: f}
}

// Counter sums a counter (or gauge) family over its labels.
func (tg *WFTarget) Counter(t testing.TB, name string) float64 {
	t.Helper()
	return counter(t, tg.Metrics, name)
}
