package reftest

import (
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/cluster"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/wukongim"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// WKTarget is a running in-process reference target speaking WuKongIM.
type WKTarget struct {
	APIURL  string // http://127.0.0.1:port, the HTTP API
	TCPAddr string // tcp://127.0.0.1:port, binary WKProto; a cluster's gateways comma-separated
	WSURL   string // ws://127.0.0.1:port, WKProto over WebSocket; likewise
	Secret  string // the managerToken
	Core    *core.Core
	Metrics *core.Metrics      // the core's process (the gateways' too unless clustered)
	Front   *wukongim.FrontEnd // the core's process's front end

	all []*core.Metrics // every process's registry: the core's, then each gateway's
}

// WKOptions shape a WuKongIM target; zero values keep the real server's
// settings (wukongim.FrontEnd).
type WKOptions struct {
	ReadTimeout    time.Duration // a logged-in connection's idle limit
	Gateways       int           // >0: a core and this many gateways, linked by package cluster
	NoEncryption   bool          // the real server's disableEncryption
	ConnectTimeout time.Duration // no CONNECT: closed after this
	AuthFailDelay  time.Duration // refused login: closed after this
	KickDelay      time.Duration // kick's DISCONNECT to close
	RetryInterval  time.Duration // un-acked RECVs sent again this often
	RetryMax       int           // at most this many times
	Open           bool          // no managerToken, tokenAuthOn false (FrontEnd.Open)
}

// StartWuKongIM serves a fresh WuKongIM target until the test ends;
// readTimeout 0 keeps the real server's idle limit.
func StartWuKongIM(t testing.TB, faults core.Faults, readTimeout time.Duration) *WKTarget {
	return StartWuKongIMWith(t, faults, WKOptions{ReadTimeout: readTimeout})
}

// StartWuKongIMCluster serves a core with the API and n gateways linked
// to it, each with a TCP and a WebSocket listener.
func StartWuKongIMCluster(t testing.TB, faults core.Faults, n int) *WKTarget {
	return StartWuKongIMWith(t, faults, WKOptions{Gateways: n})
}

// StartWuKongIMWith serves a WuKongIM target shaped by o.
func StartWuKongIMWith(t testing.TB, faults core.Faults, o WKOptions) *WKTarget {
	t.Helper()
	m := core.NewMetrics()
	front := o.frontEnd(m)
	c, err := core.New(core.Config{Secret: "test-secret", Faults: faults, Log: slog.New(slog.DiscardHandler)}, m)
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(front.API(c))
	t.Cleanup(api.Close)
	tg := &WKTarget{APIURL: api.URL, Secret: "test-secret", Core: c, Metrics: m, Front: front, all: []*core.Metrics{m}}
	if o.Gateways <= 0 {
		tg.TCPAddr, tg.WSURL = serveWK(t, front, c, o.ReadTimeout)
	} else {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go cluster.Serve(l, c, slog.New(slog.DiscardHandler))
		var tcps, wss []string
		for range o.Gateways {
			remote, err := cluster.Dial(l.Addr().String(), slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			gm := core.NewMetrics()
			tg.all = append(tg.all, gm)
			tcp, ws := serveWK(t, o.frontEnd(gm), remote, o.ReadTimeout)
			tcps, wss = append(tcps, tcp), append(wss, ws)
		}
		tg.TCPAddr, tg.WSURL = strings.Join(tcps, ","), strings.Join(wss, ",")
	}
	front.Route = wire.RouteResp{TCPAddr: strings.TrimPrefix(strings.Split(tg.TCPAddr, ",")[0], "tcp://"),
		WSAddr: strings.Split(tg.WSURL, ",")[0]}
	return tg
}

func (o WKOptions) frontEnd(m *core.Metrics) *wukongim.FrontEnd {
	f := wukongim.New(m, slog.New(slog.DiscardHandler))
	f.Encryption, f.Open = !o.NoEncryption, o.Open
	set := func(dst *time.Duration, v time.Duration) {
		if v > 0 {
			*dst = v
		}
	}
	set(&f.ConnectTimeout, o.ConnectTimeout)
	set(&f.AuthFailDelay, o.AuthFailDelay)
	set(&f.KickDelay, o.KickDelay)
	set(&f.RetryInterval, o.RetryInterval)
	if o.RetryMax > 0 {
		f.RetryMax = o.RetryMax
	}
	return f
}

// serveWK serves WKProto over backend on a TCP listener and a WebSocket
// one, and returns their URLs; the test's end closes them and every
// connection they accepted.
func serveWK(t testing.TB, f *wukongim.FrontEnd, backend core.Backend, readTimeout time.Duration) (tcpURL, wsURL string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tl := &trackingListener{Listener: l}
	go f.ServeTCP(tl, backend, readTimeout)
	t.Cleanup(tl.closeAll)
	ws := httptest.NewServer(f.Gateway(backend, readTimeout))
	t.Cleanup(func() {
		ws.CloseClientConnections()
		ws.Close()
	})
	return "tcp://" + l.Addr().String(), "ws" + strings.TrimPrefix(ws.URL, "http")
}

// trackingListener remembers what it accepted, to close it all at the end.
type trackingListener struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

func (l *trackingListener) closeAll() {
	l.Listener.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
}

// Counter sums a counter (or gauge) family over its labels and over every
// process of the target: the core counts faults, the gateways their
// connections' pushes and heartbeat timeouts.
func (tg *WKTarget) Counter(t testing.TB, name string) float64 {
	t.Helper()
	var sum float64
	for _, m := range tg.all {
		sum += counter(t, m, name)
	}
	return sum
}
