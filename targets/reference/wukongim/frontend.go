// Package wukongim is the reference target's WuKongIM v2 front end: the
// HTTP API (the real server's port 5001) and binary WKProto connections over
// TCP (5100) and WebSocket (5200), over the protocol-free core. It speaks
// wire/wukongim, behaves as ../shared/protocols/wukongim.md §5 and §13 say
// the real server does on everything a load client touches, keeps what a
// RECV needs in the core's opaque payload (payload.go), numbers devices so
// that the core's one-session-per-device rule gives WuKongIM's kicks
// (device.go), answers the core's refusals with reason codes (errors.go) and
// exports the counts a real server's /metrics has (metrics.go).
//
// Chatrooms are v2's live channels (type 9): subscribers added and removed
// through the API join and leave the core's chatroom, a SEND to it reaches
// the subscribers online at that moment, and a RECV names it by its id and
// type 9.
//
// Where the reference knowingly differs: a client's DISCONNECT is answered
// with a DISCONNECT before the socket closes (a real v2 server ignores it),
// so that a client tells its own goodbye from a drop; a live channel keeps
// no messages, so /channel/messagesync answers it an empty page (the real
// server stores them); JSON-RPC, SUB, streams and channel types other than
// person, group and live are not served.
package wukongim

import (
	"crypto/rand"
	"encoding/binary"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// The real server's defaults (wukongim.md §5, §13).
const (
	DefaultReadTimeout    = 3 * time.Minute  // connIdleTime: a logged-in connection silent this long is dropped
	DefaultConnectTimeout = 3 * time.Second  // no CONNECT: closed after ≈ 3 s (§13)
	DefaultAuthFailDelay  = 6 * time.Second  // refused login: no CONNACK, closed after ≈ 6 s (§13)
	DefaultKickDelay      = 2 * time.Second  // DISCONNECT(12), then closed 2 s later
	DefaultRetryInterval  = 60 * time.Second // messageRetry.interval
	DefaultRetryMax       = 5                // messageRetry.maxCount
	DefaultNodeID         = 1001             // a single node's id in CONNACK
)

// FrontEnd is WuKongIM's protocol as a server process starts it: the API
// where the core is, the TCP and WebSocket listeners where connections are,
// WuKongIM's series on the process's registry. Set the fields before
// serving; they are not to change while connections are open.
type FrontEnd struct {
	Metrics *Metrics
	Log     *slog.Logger

	Encryption     bool           // false: the real server's disableEncryption (serverKey and salt "", raw payloads)
	ReadTimeout    time.Duration  // for a ServeTCP or Gateway called with 0
	ConnectTimeout time.Duration  // how long a connection may stay without a CONNECT
	AuthFailDelay  time.Duration  // how long a refused login is kept open, silent, before it is closed
	KickDelay      time.Duration  // from a kick's DISCONNECT to the close
	RetryInterval  time.Duration  // an un-acked persisted RECV is sent again this often
	RetryMax       int            // and at most this many times
	NodeID         uint64         // CONNACK's nodeId
	Route          wire.RouteResp // what GET /route answers: this front end's own addresses
	// Open is the real server's default configuration: no managerToken
	// (no API route asks for a token) and tokenAuthOn false (a CONNECT
	// logs in with any token, an empty one too, as a slave device). A uid
	// the core does not know is registered at its CONNECT, or when a
	// person channel names it, where the core is in this process. Off, the
	// core's secret is the managerToken and every login needs its token.
	Open bool

	ids     idGen
	started time.Time
	cpu     cpuMeter
	drops   atomic.Pointer[loginDrops] // the login-drop fault (SetLoginDrops)

	mu     sync.Mutex
	online map[string]int // uid → connections, this process's
	live   sync.Map       // *conn → struct{}: the logged-in connections (/connz, /user/onlinestatus)
}

// New registers WuKongIM's series on m and returns a front end with the
// real server's settings.
func New(m *core.Metrics, log *slog.Logger) *FrontEnd {
	f := &FrontEnd{Metrics: NewMetrics(m), Log: log, Encryption: true,
		ReadTimeout: DefaultReadTimeout, ConnectTimeout: DefaultConnectTimeout, AuthFailDelay: DefaultAuthFailDelay,
		KickDelay: DefaultKickDelay, RetryInterval: DefaultRetryInterval, RetryMax: DefaultRetryMax,
		NodeID: DefaultNodeID, started: time.Now(), online: map[string]int{}}
	var b [8]byte
	rand.Read(b[:])
	// Random node bits keep the message ids of a core's gateways apart
	// (1 pair in 1024 shares them; ids of one front end never repeat).
	f.ids.node = int64(binary.LittleEndian.Uint64(b[:]) & nodeMask)
	f.Metrics.front = f
	f.cpu.start()
	return f
}

// API serves the HTTP API over c, the core's secret being the managerToken.
func (f *FrontEnd) API(c *core.Core) http.Handler { return newAPI(f, c) }

// ServeTCP serves binary WKProto on l over b until l is closed;
// readTimeout 0 keeps f.ReadTimeout.
func (f *FrontEnd) ServeTCP(l net.Listener, b core.Backend, readTimeout time.Duration) error {
	g := f.gateway(b, readTimeout)
	var delay time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		go g.serve(newTCPTransport(nc))
	}
}

// Gateway serves binary WKProto in WebSocket binary messages over b, on any
// path; readTimeout 0 keeps f.ReadTimeout.
func (f *FrontEnd) Gateway(b core.Backend, readTimeout time.Duration) http.Handler {
	return &wsGateway{g: f.gateway(b, readTimeout), upgrader: newUpgrader()}
}

// gateway is what the connections of one listener share.
type gateway struct {
	f           *FrontEnd
	b           core.Backend
	readTimeout time.Duration
}

func (f *FrontEnd) gateway(b core.Backend, readTimeout time.Duration) *gateway {
	if readTimeout <= 0 {
		readTimeout = f.ReadTimeout
	}
	return &gateway{f: f, b: b, readTimeout: readTimeout}
}

// registrar is a backend that registers users: the core, in this process.
type registrar interface {
	Registered(ids []string) map[string]bool
	Register(ids []string) error
}

// ensure registers uid where the open setting takes any uid and the core
// is here; a core behind a cluster link keeps refusing uids it does not
// know.
func (g *gateway) ensure(uid string) {
	if r, ok := g.b.(registrar); ok && !r.Registered([]string{uid})[uid] {
		r.Register([]string{uid}) // a concurrent registration of the same uid is as good
	}
}

// userOnline counts a logged-in connection of uid, or (delta -1) its end.
func (f *FrontEnd) userOnline(uid string, delta int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := f.online[uid] + delta; n > 0 {
		f.online[uid] = n
	} else {
		delete(f.online, uid)
	}
}

func (f *FrontEnd) onlineUsers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.online)
}
