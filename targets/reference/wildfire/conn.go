package wildfire

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wildfire"
)

const (
	writeWait = 10 * time.Second // the CONNACK's only
	keepBuf   = 64 << 10
)

// A client that reads slower than its frames come is never dropped for it:
// the real server writes with Netty's writeAndFlush, no writability check
// and no write timeout (ConnectionDescriptor), so what waits grows; only
// the reader-idle limit (1.5 × keepAlive) closes a connection.

// conn is one logged-in MQTT connection. Its reader goroutine (readLoop)
// handles requests and queues the answers; writeLoop writes whatever is
// queued (answers, MNs, ROFL), in queue order, several frames in one write.
// Pushes the core hands it are filed in the user's feed in the order they
// come, each no earlier than its time (the delay fault): at once when
// nothing waits before it, else by deliverLoop, started while some wait.
type conn struct {
	f     *FrontEnd
	nc    net.Conn
	s     *session
	uid   string
	level uint8
	feed  *feed
	cs    *core.Session

	qmu    sync.Mutex
	obuf   []byte // queued for writeLoop
	opush  int    // MNs in obuf
	wake   chan struct{}
	done   chan struct{}
	once   sync.Once
	kicked atomic.Bool

	dmu      sync.Mutex
	dq       []delivery // pushes waiting for their time, in order
	drunning bool       // deliverLoop runs

	// The reader's own buffers, reused request after request.
	plain  []byte // a request's result
	answer []byte // a PUBACK, encrypted
	pulled []*core.Message
}

type delivery struct {
	p      *core.Push
	at     time.Time
	notify bool // false: filed without an MN (a skipped push)
}

func newConn(f *FrontEnd, nc net.Conn, s *session, level uint8, fd *feed) *conn {
	return &conn{f: f, nc: nc, s: s, uid: s.user, level: level, feed: fd,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Deliver implements core.Outlet: p is filed in the user's feed and told
// with an MN, no earlier than at, after what came before it. The sender's
// own copies are filed nowhere. An ended connection files it without an
// MN, so the client finds it at its next login, and answers false: the
// client pulls it, and a pulled copy is neither a duplicate nor out of
// order to it, so the core must not count one.
func (c *conn) Deliver(p *core.Push, at time.Time) bool {
	if p.Msg.Sender == c.uid || !ours(p.Msg) {
		return !c.ended()
	}
	return c.enqueue(delivery{p: p, at: at, notify: true})
}

// Store implements core.Storer: a push the skip-push fault left out is
// filed, in its turn, without an MN.
func (c *conn) Store(p *core.Push) {
	if p.Msg.Sender == c.uid || !ours(p.Msg) {
		return
	}
	c.enqueue(delivery{p: p, notify: false})
}

func (c *conn) enqueue(d delivery) (live bool) {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	if c.ended() {
		c.drainLocked()
		c.file(d.p, false)
		return false
	}
	if len(c.dq) == 0 && !d.at.After(time.Now()) {
		c.file(d.p, d.notify)
		return true
	}
	c.dq = append(c.dq, d)
	if !c.drunning {
		c.drunning = true
		go c.deliverLoop()
	}
	return true
}

// deliverLoop files the queued pushes as their times come; it ends when
// the queue is empty or the connection ended (what is left is filed then,
// without MNs).
func (c *conn) deliverLoop() {
	var t *time.Timer
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	for {
		c.dmu.Lock()
		if c.ended() {
			c.drainLocked()
			c.drunning = false
			c.dmu.Unlock()
			return
		}
		now := time.Now()
		for len(c.dq) > 0 && !c.dq[0].at.After(now) {
			d := c.dq[0]
			c.dq[0] = delivery{}
			c.dq = c.dq[1:]
			c.file(d.p, d.notify)
		}
		if len(c.dq) == 0 {
			c.dq = nil
			c.drunning = false
			c.dmu.Unlock()
			return
		}
		wait := c.dq[0].at.Sub(now)
		c.dmu.Unlock()
		if t == nil {
			t = time.NewTimer(wait)
		} else {
			t.Reset(wait)
		}
		select {
		case <-t.C:
		case <-c.done:
		}
	}
}

// drainLocked files everything queued, without MNs: the connection ended.
func (c *conn) drainLocked() {
	for _, d := range c.dq {
		c.file(d.p, false)
	}
	c.dq = nil
}

// file puts p in the user's feed and, when notify and the connection is
// open, queues its MN in the same step: an MP answered after that holds the
// message only after its MN.
func (c *conn) file(p *core.Push, notify bool) {
	t := feedType(p.Msg)
	fd := c.feed
	fd.mu.Lock()
	seq := fd.q[t].add(p.Msg)
	if notify {
		c.notifyLocked(t, seq, p.Msg)
	}
	fd.mu.Unlock()
	via := viaStore
	if notify {
		via = viaPush
	}
	c.f.Metrics.filed(t, via)
}

// notifyLocked queues the MN of seq in feed type t, its feed locked.
func (c *conn) notifyLocked(t int, seq int64, m *core.Message) {
	if c.ended() {
		return
	}
	var target string
	if t == feedRoom {
		target = m.Conv.ID
	}
	c.qmu.Lock()
	was := len(c.obuf)
	c.obuf = appendNotify(c.obuf, t, seq, target)
	c.opush++
	c.qmu.Unlock()
	c.f.Metrics.notifies[t].Inc()
	c.signal(was == 0)
}

// appendNotify appends an MN push: NotifyMessage{type, head, target}.
func appendNotify(dst []byte, t int, head int64, target string) []byte {
	var buf [64]byte
	b := protowire.AppendTag(buf[:0], 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(t))
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(head))
	if target != "" {
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendString(b, target)
	}
	out, _ := wire.AppendPush(dst, wire.TopicNotifyMessage, b)
	return out
}

var rofl, _ = wire.AppendPush(nil, wire.TopicNotifyOffline, []byte("1"))

// Kick implements core.Outlet: ROFL "1", then the close KickDelay later.
func (c *conn) Kick() {
	if !c.kicked.CompareAndSwap(false, true) {
		return // get_token kicked it already; the new client's CONNECT asks again
	}
	c.f.Metrics.kicks.Inc()
	c.put(rofl)
	time.AfterFunc(c.f.KickDelay, func() { c.Close() })
}

// Close implements core.Outlet: the socket closes with nothing said, as a
// dropped connection does; false when the connection was ending already.
func (c *conn) Close() bool {
	did := false
	c.once.Do(func() {
		did = true
		close(c.done)
		c.nc.Close() // unblocks a read or write in progress
	})
	return did
}

func (c *conn) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// put queues a whole frame.
func (c *conn) put(b []byte) {
	if c.ended() {
		return
	}
	c.qmu.Lock()
	was := len(c.obuf)
	c.obuf = append(c.obuf, b...)
	c.qmu.Unlock()
	c.signal(was == 0)
}

// signal wakes writeLoop when what was queued was the first: it takes the
// whole queue each time it wakes, so it is woken already otherwise.
func (c *conn) signal(first bool) {
	if !first {
		return
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *conn) writeLoop() {
	var spare []byte
	m := c.f.Metrics
	for {
		select {
		case <-c.wake:
		case <-c.done:
			return
		}
		c.qmu.Lock()
		b, pushes := c.obuf, c.opush
		c.obuf, c.opush = spare[:0], 0
		c.qmu.Unlock()
		if len(b) == 0 {
			spare = b
			continue
		}
		c.nc.SetWriteDeadline(time.Time{}) // none: what waits for a slow reader grows, as on the real server
		if _, err := c.nc.Write(b); err != nil {
			c.Close()
			return
		}
		m.PushesWritten(pushes)
		spare = b
		if cap(spare) > keepBuf {
			spare = nil
		}
	}
}
