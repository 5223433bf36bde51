package wukongim

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/writeq"
	wire "github.com/imbench/imbench/wire/wukongim"
)

const (
	writeWait = 10 * time.Second // for a goodbye's answer only
	keepBuf   = 1 << 20
)

// A client that reads slower than its pushes come is never dropped for it,
// as on the real server: its outbound buffer is an elastic ring buffer
// with no cap that a push could hit (pkg/wknet conn.go
// WriteToOutboundBuffer, pkg/ring), written with no deadline (a full socket
// waits for the next writable event). The queue grows and the latency
// shows the backlog; the idle limit (connIdleTime) counts reads only.
const unbounded = math.MaxInt

// conn is one logged-in connection: readLoop's goroutine reads and handles
// frames, writeLoop's writes everything (answers, pushes, resent RECVs) in
// queue order, several queued frames in one write.
type conn struct {
	g       *gateway
	t       transport
	id      uint64 // stored.Origin of what it sends
	uid     string
	version uint8
	cipher  *wire.Cipher // nil with encryption off
	sess    *core.Session

	wmu sync.Mutex // one writer at a time on t

	q      writeq.Queue[frame]
	done   chan struct{}
	once   sync.Once
	kicked bool // writeLoop's: the kick's DISCONNECT is out

	retry retryQueue
	stats connStats
}

type frame struct {
	push   *core.Push
	data   []byte
	resend bool // data is a RECV sent again
	kick   bool
	at     time.Time
}

func newConn(g *gateway, t transport, uid string, version uint8, cipher *wire.Cipher) *conn {
	id := rand.Uint64()
	for id == 0 {
		id = rand.Uint64()
	}
	return &conn{g: g, t: t, id: id, uid: uid, version: version, cipher: cipher, done: make(chan struct{})}
}

// Deliver implements core.Outlet.
func (c *conn) Deliver(p *core.Push, at time.Time) bool { return c.enqueue(frame{push: p, at: at}) }

// Kick implements core.Outlet: DISCONNECT(12, "login in other device"),
// then the close KickDelay later.
func (c *conn) Kick() { c.enqueue(frame{kick: true, at: time.Now()}) }

// Close implements core.Outlet: the socket closes with nothing said, as a
// dropped connection does.
func (c *conn) Close() bool { return c.end(nil) }

// end ends the connection once, reporting whether this call did; answer,
// when set, is written first (the reply to the client's DISCONNECT).
func (c *conn) end(answer []byte) bool {
	did := false
	c.once.Do(func() {
		did = true
		close(c.done)
		if answer != nil {
			c.wmu.Lock() // the answer is the last thing written
			c.t.write(answer, time.Now().Add(writeWait))
			c.t.Close()
			c.wmu.Unlock()
		} else {
			c.t.Close() // unblocks a write in progress
		}
		c.stopRetries()
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

func (c *conn) enqueue(f frame) bool {
	if c.ended() {
		return false
	}
	c.q.Push(f, unbounded)
	return true
}

// first puts data before everything queued: the CONNACK, ahead of pushes
// that came between Attach and now.
func (c *conn) first(data []byte) { c.q.PushFront(frame{data: data, at: time.Now()}) }

// out is a batch being written and what it holds.
type out struct {
	buf      []byte
	pushes   int // core pushes (imbench_target_pushes_total)
	recvs    int // RECVs, resent ones too
	frames   int // every frame, for /connz
	msgBytes int // RECVs' payloads
	// Scratch reused for every encrypted RECV: its payload and sign.
	payload, sign []byte
}

func (c *conn) writeLoop() {
	var o out
	for {
		batch := c.q.Take(nil, c.done)
		if batch == nil {
			return
		}
		kick := false
		now := time.Now()
		for _, f := range batch {
			if f.at.After(now) {
				if !c.flush(&o) || !c.sleep(time.Until(f.at)) {
					return
				}
				now = time.Now()
			}
			switch {
			case f.kick:
				if !c.kicked {
					o.frames++
					c.kicked, kick = true, true
					o.buf, _ = wire.Disconnect{ReasonCode: wire.ReasonConnectKick, Reason: wire.KickReason}.Append(o.buf, c.version)
				}
			case f.push != nil:
				c.appendPush(&o, f.push)
			default:
				o.buf = append(o.buf, f.data...)
				o.frames++
				if f.resend {
					o.recvs++
				}
			}
		}
		if !c.flush(&o) {
			return
		}
		if kick {
			time.AfterFunc(c.g.f.KickDelay, func() { c.Close() })
		}
	}
}

// flush writes the batch so far; false ends the connection.
func (c *conn) flush(o *out) bool {
	if len(o.buf) == 0 {
		return true
	}
	c.wmu.Lock()
	err := c.t.write(o.buf, time.Time{})
	c.wmu.Unlock()
	if err != nil {
		c.Close()
		return false
	}
	m := c.g.f.Metrics
	m.outBytes.Add(int64(len(o.buf)))
	m.outMsgs.Add(int64(o.recvs))
	m.PushesWritten(o.pushes)
	st := &c.stats
	st.outBytes.Add(int64(len(o.buf)))
	st.outPackets.Add(int64(o.frames))
	st.outMsgs.Add(int64(o.recvs))
	st.outMsgBytes.Add(int64(o.msgBytes))
	o.buf, o.pushes, o.recvs, o.frames, o.msgBytes = o.buf[:0], 0, 0, 0, 0
	if cap(o.buf) > keepBuf {
		o.buf = nil
	}
	return true
}

func (c *conn) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.done:
		return false
	}
}
