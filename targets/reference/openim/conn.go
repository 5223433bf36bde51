package openim

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/writeq"
	wire "github.com/imbench/imbench/wire/openim"
)

// conn is one client connection: readLoop's goroutine reads, writeLoop
// writes everything (replies and pushes) in queue order (writer.go).
type conn struct {
	g          *Gateway
	ws         *websocket.Conn
	nc         net.Conn // ws's socket, which writeLoop writes its frames to
	wmu        sync.Mutex
	sess       *core.Session
	env        wire.Envelope
	gzip       bool
	variant    int // which of a push's frames this connection takes (push.go)
	platform   int
	background atomic.Bool // 2004: the app is in the background
	q          writeq.Queue[frame]
	done       chan struct{}
	once       sync.Once
}

func newConn(g *Gateway, ws *websocket.Conn, a loginArgs) *conn {
	c := &conn{g: g, ws: ws, nc: ws.NetConn(), env: a.env, gzip: a.gzip, platform: a.platform, done: make(chan struct{})}
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
		return !c.ended()
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
			c.wmu.Lock() // after a batch being written: the close frame is the last out
			c.ws.WriteControl(websocket.CloseMessage, answer, time.Now().Add(writeWait))
			c.ws.Close()
			c.wmu.Unlock()
		} else {
			c.ws.Close() // unblocks a write in progress
		}
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
	if !c.q.Push(f, queueFrames) {
		c.g.Log.Warn("write queue full, closing", "user", c.sess.User)
		c.Close()
		return false
	}
	return true
}

// encode makes the binary frame of an envelope for this connection.
func (c *conn) encode(r *wire.Resp) ([]byte, error) { return encodeFrame(r, c.env, c.gzip) }
