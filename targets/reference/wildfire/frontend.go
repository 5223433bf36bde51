// Package wildfire is the reference target's Wildfire IM (im-server 1.2.4)
// front end: the signed admin API (the real server's port 18080) and the
// extended MQTT connections (1883), over the protocol-free core. It speaks
// wire/wildfire and behaves as ../shared/protocols/wildfire.md §4, §5 and
// §14 say the real server does on everything a load client touches.
//
// Wildfire delivers by notify and pull: each receiver has a feed, a list of
// messages numbered 1, 2, 3, … per user (type 0; chatrooms a second one,
// type 1). A message is filed in the feed of every receiver but its sender,
// and each filing is told to the receiver's connection with a plaintext
// QoS 0 PUBLISH "MN" {type, head = the new seq}; the client pulls with MP
// {id = the last seq it has} and gets what follows, at most about 512 KB at
// a time (current < head: pull again). A pull also trims the feed up to id,
// the client having those. The core's faults act on the filings: a push the
// core hands a connection (Deliver) is one filing and one MN, no earlier
// than the delay fault says, in order per connection; a skipped push is
// filed without an MN (core.Storer), a duplicated one twice, a reordered one
// after its sender's next; a lost message is filed nowhere. Members offline
// get theirs filed through the core's feed hook (core.SetFeed), and so does
// a connection that has ended, so the client finds them at its next login
// (CONNACK's msg_head).
//
// Sessions are get_token's: per clientId a user, a platform and a random
// secret (the wfAES key of CONNECT's password, every request and every
// answer). A newer get_token for the same user and platform class with
// another clientId removes the older session, and that client's CONNECT
// kicks the older connection (ROFL "1", closed KickDelay later), through
// the core's one session per user and device: the device is the platform
// class, the session token the clientId.
//
// Where the reference knowingly differs: seqs are small and consecutive
// (the real server's are time-based and huge), so MP id 1 is not the "lite
// mode" and id 0 returns the whole feed; a message is stored and pulled
// whatever its persist_flag (transparent messages, 4, are not pushed as MS);
// the sender's other devices get nothing of its messages, and a user
// connected on two platform classes at once gets each message filed once per
// connection (the feed is the user's, a push the session's); users' names are
// not checked for uniqueness; the admin API has no rate limit; only MS, MP,
// CRJ and CRQ are served (other IM topics answer 254). The feeds are kept
// beside the core, so the front end is served only where the core is.
package wildfire

import (
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// The real server's defaults (wildfire.md §1, §5, §9, §14), and the rate
// limit of the seed's method.
const (
	DefaultConnectTimeout = 10 * time.Second // netty.channel_timeout.seconds: no CONNECT, closed
	DefaultKickDelay      = 3 * time.Second  // ROFL, then the TCP connection closed ≈ 3 s later
	DefaultRateLimit      = 1000000          // client.request_rate_limit as the vendor's method sets it
	ReleaseRateLimit      = 100              // client.request_rate_limit of the release config
	RateWindow            = 5 * time.Second  // the limit is RateLimit requests per this
	DefaultMaxPullBytes   = 512 << 10        // a pull answers about this much at most
	DefaultNode           = 1                // online_count's and health's node
)

// FrontEnd is Wildfire's protocol beside a core: the admin API, the MQTT
// listener, the sessions and the feeds, Wildfire's series on the core's
// registry. Set the fields before serving; they are not to change while
// connections are open.
type FrontEnd struct {
	Metrics *Metrics
	Log     *slog.Logger

	ReadTimeout    time.Duration // > 0: a connection silent this long is dropped, whatever its keepAlive (else round(1.5 × keepAlive) s; 0 none)
	ConnectTimeout time.Duration // how long a connection may stay without a CONNECT
	KickDelay      time.Duration // from a kick's ROFL to the close
	RateLimit      int           // requests per RateWindow per clientId and topic (MP and UG exempt)
	TokenKey       string        // token.key, inside every DES token
	MaxPullBytes   int           // messages one MP answers, in encoded bytes (at least one)
	// AdminTimeoutEvery > 0: every n-th user destroy, group dismissal,
	// group creation or member add is done and answered 249 "timeout" (a
	// fault: a real server behind).
	AdminTimeoutEvery int
	AdminTimeoutDelay time.Duration // > 0: those removals are done this much later
	adminWrites       atomic.Int64

	c   *core.Core
	ids idGen

	mu       sync.RWMutex
	sessions map[string]*session   // clientId → session
	byUser   map[string][]*session // user → its sessions
	feeds    map[string]*feed      // user → feed, for every user get_token or user/create saw
	rooms    map[string]bool       // chatrooms chatroom/create made
	online   atomic.Int64          // users with an MQTT connection (feeds with one)
	started  time.Time
}

// New returns a front end over c with the real server's settings and the
// seed's method's rate limit, registers Wildfire's series on m (c's
// metrics) and installs its feed hook in c.
func New(c *core.Core, m *core.Metrics, log *slog.Logger) *FrontEnd {
	if log == nil {
		log = slog.Default()
	}
	f := &FrontEnd{Metrics: NewMetrics(m), Log: log,
		ConnectTimeout: DefaultConnectTimeout, KickDelay: DefaultKickDelay, RateLimit: DefaultRateLimit,
		TokenKey: wire.DefaultTokenKey, MaxPullBytes: DefaultMaxPullBytes,
		c: c, sessions: map[string]*session{}, byUser: map[string][]*session{}, feeds: map[string]*feed{},
		rooms: map[string]bool{}, started: time.Now()}
	f.ids.init()
	f.Metrics.front = f
	c.SetFeed(f.fileOffline)
	return f
}

// ServeMQTT serves Wildfire's MQTT on l until l is closed.
func (f *FrontEnd) ServeMQTT(l net.Listener) error {
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
		go f.serve(nc)
	}
}

// OnlineUsers is how many users have a Wildfire connection.
func (f *FrontEnd) OnlineUsers() int { return int(f.online.Load()) }
