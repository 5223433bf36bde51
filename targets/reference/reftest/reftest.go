// Package reftest starts the reference target inside a test process, on
// loopback ports the kernel picks, and reads its counters back: OpenIM's
// front end (Start, StartWith, StartCluster) or WuKongIM's (StartWuKongIM,
// StartWuKongIMWith, StartWuKongIMCluster).
package reftest

import (
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/cluster"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/openim"
)

// Target is a running in-process reference target.
type Target struct {
	APIURL, WSURL string
	Secret        string
	Core          *core.Core
	Metrics       *core.Metrics // every series of the core's process, the front end's included

	front *openim.FrontEnd
}

// Start serves a fresh target until the test ends.
func Start(t testing.TB, faults core.Faults) *Target { return StartWith(t, faults, 0) }

// StartWith also sets the gateway's read deadline (0: the front end's).
func StartWith(t testing.TB, faults core.Faults, readTimeout time.Duration) *Target {
	t.Helper()
	tg := startCore(t, faults, nil)
	tg.WSURL = serveGateway(t, tg.front, tg.Core, readTimeout)
	return tg
}

// StartConfigured serves a target whose front end configure sets up first
// (a behaviour of the real server's that is off by default).
func StartConfigured(t testing.TB, faults core.Faults, configure func(*openim.FrontEnd)) *Target {
	t.Helper()
	tg := startCore(t, faults, configure)
	tg.WSURL = serveGateway(t, tg.front, tg.Core, 0)
	return tg
}

// StartCluster serves a core and n gateways linked to it (package
// cluster); WSURL lists the gateways, comma-separated.
func StartCluster(t testing.TB, faults core.Faults, n int) *Target {
	t.Helper()
	tg := startCore(t, faults, nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go cluster.Serve(l, tg.Core, slog.New(slog.DiscardHandler))
	var urls []string
	for i := 0; i < n; i++ {
		remote, err := cluster.Dial(l.Addr().String(), slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, serveGateway(t, frontEnd(core.NewMetrics()), remote, 0))
	}
	tg.WSURL = strings.Join(urls, ",")
	return tg
}

// frontEnd is the OpenIM front end as imbench-target starts it: with
// open-im-server's notifications.
func frontEnd(m *core.Metrics) *openim.FrontEnd {
	f := openim.New(m, slog.New(slog.DiscardHandler))
	f.Notifications = true
	return f
}

// startCore serves the state and the REST API; no gateway yet.
func startCore(t testing.TB, faults core.Faults, configure func(*openim.FrontEnd)) *Target {
	m := core.NewMetrics()
	front := frontEnd(m)
	if configure != nil {
		configure(front)
	}
	c, err := core.New(core.Config{Secret: "test-secret", Faults: faults, Log: slog.New(slog.DiscardHandler)}, m)
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(front.API(c))
	t.Cleanup(api.Close)
	return &Target{APIURL: api.URL, Secret: "test-secret", Core: c, Metrics: m, front: front}
}

// serveGateway serves a WebSocket gateway over backend and returns its URL.
func serveGateway(t testing.TB, front *openim.FrontEnd, backend core.Backend, readTimeout time.Duration) string {
	ws := httptest.NewServer(front.Gateway(backend, readTimeout))
	t.Cleanup(func() {
		ws.CloseClientConnections()
		ws.Close()
	})
	return "ws" + strings.TrimPrefix(ws.URL, "http")
}

// Counter sums a counter family over all its labels (0 when absent).
func (tg *Target) Counter(t testing.TB, name string) float64 { return counter(t, tg.Metrics, name) }

func counter(t testing.TB, m *core.Metrics, name string) float64 {
	t.Helper()
	mfs, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if c := m.GetCounter(); c != nil {
				sum += c.GetValue()
			}
			if g := m.GetGauge(); g != nil {
				sum += g.GetValue()
			}
		}
	}
	return sum
}
