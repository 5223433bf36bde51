package openim

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
)

// conn is one client connection: readLoop's goroutine reads, writeLoop
// writes everything (replies and pushes) in queue order.
type conn struct {
	g          *Gateway
	ws         *websocket.Conn
	sess       *core.Session
	env        wire.Envelope
	gzip       bool
	variant    int // which of a push's frames this connection takes (push.go)
	platform   int
	background atomic.Bool // 2004: the app is in the background
	// The write queue: a slice, not a buffered channel, so that an idle
	// connection holds no queue (1,024 slots of a channel cost 64 KB each).
	qmu   sync.Mutex
	queue []frame
	wake  chan struct{}
	done  chan struct{}
	once  sync.Once
}

func newConn(g *Gateway, ws *websocket.Conn, a loginArgs) *conn {
	c := &conn{g: g, ws: ws, env: a.env, gzip: a.gzip, platform: a.platform, wake: make(chan struct{}, 1), done: make(chan struct{})}
	c.variant = variantOf(a.env, a.gzip)
	return c
}

type frame struct {
	push  *core.Push
	data  []byte
	text  bool
	kick  bool // write 2002 KickOnlineMsg, then close
	final bool // close after writing
	at    time.Time
}

// Deliver implements core.Outlet. An iOS connection whose app is in the
// background is not pushed to (open-im-server internal/msggateway
// hub_server.go pushToUser): the push is dropped, not refused.
func (c *conn) Deliver(p *core.Push, at time.Time) bool {
	if c.platform == wire.PlatformIOS && c.background.Load() {
		select {
		case <-c.done:
			return false
		default:
			return true
		}
	}
	return c.enqueue(frame{push: p, at: at})
}

// Kick implements core.Outlet: 2002, then close.
func (c *conn) Kick() { c.enqueue(frame{kick: true, at: time.Now()}) }

// Close implements core.Outlet: the TCP connection ends with no close
// frame, as a dropped connection does.
func (c *conn) Close() bool { return c.end(nil) }

// end ends the connection once, reporting whether this call did; answer,
// when set, is written first as a close frame (the reply to the client's).
func (c *conn) end(answer []byte) bool {
	did := false
	c.once.Do(func() {
		did = true
		close(c.done)
		if answer != nil {
			c.ws.WriteControl(websocket.CloseMessage, answer, time.Now().Add(writeWait))
		}
		c.ws.Close()
	})
	return did
}

func (c *conn) enqueue(f frame) bool {
	select {
	case <-c.done:
		return false
	default:
	}
	c.qmu.Lock()
	full := len(c.queue) >= queueFrames
	if !full {
		c.queue = append(c.queue, f)
	}
	c.qmu.Unlock()
	if full {
		c.g.Log.Warn("write queue full, closing", "user", c.sess.User)
		c.Close()
		return false
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return true
}

func (c *conn) writeLoop() {
	for {
		c.qmu.Lock()
		batch := c.queue
		c.queue = nil
		c.qmu.Unlock()
		if len(batch) == 0 {
			select {
			case <-c.wake:
				continue
			case <-c.done:
				return
			}
		}
		for _, f := range batch {
			if !c.write(f) {
				return
			}
		}
	}
}

// write sends one queued frame; false ends the connection.
func (c *conn) write(f frame) bool {
	if d := time.Until(f.at); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-c.done:
			t.Stop()
			return false
		}
	}
	datas, mt := [][]byte{f.data}, websocket.BinaryMessage
	var (
		pf  *pushFrames
		err error
	)
	switch {
	case f.kick:
		datas[0], err = c.encode(&wire.Resp{ReqIdentifier: wire.KickOnlineMsg})
	case f.push != nil:
		pf = framesOf(f.push)
		datas, err = pf.frames(c.variant)
	case f.text:
		mt = websocket.TextMessage
	}
	for _, data := range datas {
		if err != nil {
			break
		}
		c.ws.SetWriteDeadline(time.Now().Add(writeWait))
		err = c.ws.WriteMessage(mt, data)
	}
	if err != nil || f.kick || f.final {
		c.Close()
		return false
	}
	if pf != nil {
		c.g.Metrics.pushWritten(pf.sendTime, time.Now().UnixMilli())
	}
	return true
}

// encode makes the binary frame of an envelope for this connection.
func (c *conn) encode(r *wire.Resp) ([]byte, error) { return encodeFrame(r, c.env, c.gzip) }
