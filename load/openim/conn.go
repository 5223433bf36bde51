package openim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/imbench/imbench/load/awaiting"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/netloop"
	"github.com/imbench/imbench/load/ws"
	wire "github.com/imbench/imbench/wire/openim"
)

// ErrKicked ends a connection the server replaced (2002 KickOnlineMsg).
var ErrKicked = errors.New("kicked by the server (another login of this user and platform)")

const (
	maxSeqsPerRange = 100 // what the SDK asks for when it splits a pull
	maxFrame        = 1 << 20
)

// conn is one user's gateway connection. Its bytes arrive through
// netloop (OnData, OnClose: one at a time, on a loop goroutine shared with
// other connections); frames go out whole through the stream.
type conn struct {
	d     *Driver
	user  uint32
	uid   string
	st    netloop.Stream
	rd    ws.Reader
	codec wire.Codec
	h     engine.Handler

	pending *awaiting.Set[string, pending] // requests waiting for their answer, by MsgIncr
	incr    atomic.Uint64
	kicked  atomic.Bool
	ended   atomic.Bool // set by OnClose, under cmu

	dialed time.Time                         // when the login began
	reqs   atomic.Int64                      // requests made: WebSocket requests and REST calls
	token  string                            // the user's, for the SDK-faithful login's REST calls
	local  *local                            // the SDK-faithful login's local database of the user
	maxes  atomic.Pointer[map[uint32]uint64] // the login's 1001 answer, for the engine's sync

	cmu     sync.Mutex         // Close against OnClose
	onEnd   func(dropped bool) // set by Close: our goodbye is out
	goodbye bool               // a close frame answered ours
	wait    *time.Timer        // ends the connection if no answer comes
}

// closeWait bounds the wait for the server's answer to our close frame.
const closeWait = 3 * time.Second

type pending struct {
	cb func(*wire.Resp, error)
	id int32 // its ReqIdentifier
}

var errConnClosed = awaiting.ErrClosed

var frameBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// write sends one whole frame.
func (c *conn) write(op ws.Op, payload []byte) error {
	bp := frameBufs.Get().(*[]byte)
	b := ws.AppendFrame((*bp)[:0], op, payload)
	err := c.st.Write(b, c.d.cfg.Timeout)
	*bp = b
	frameBufs.Put(bp)
	return err
}

// Dialed implements engine.LoginCoster.
func (c *conn) Dialed() time.Time { return c.dialed }

// Requests implements engine.LoginCoster.
func (c *conn) Requests() int64 { return c.reqs.Load() }

// Ping implements engine.Conn with a WebSocket ping control frame.
func (c *conn) Ping() error { return c.write(ws.OpPing, nil) }

// Alive implements engine.Conn.
func (c *conn) Alive() bool { return !c.ended.Load() }

// Close implements engine.Conn: a close frame, then the server's answer
// (or closeWait) ends the connection. A connection that ends any other way,
// or had ended already, was dropped.
func (c *conn) Close(ended func(dropped bool)) {
	c.cmu.Lock()
	if c.ended.Load() {
		c.cmu.Unlock()
		ended(true)
		return
	}
	c.onEnd = ended
	c.wait = time.AfterFunc(closeWait, func() { c.st.Close() })
	c.cmu.Unlock()
	if c.write(ws.OpClose, ws.ClosePayload(1000, "")) != nil {
		c.st.Close()
	}
}

// OnData implements netloop.Handler.
func (c *conn) OnData(b []byte) error { return c.rd.Feed(b, c.onMessage) }

func (c *conn) onMessage(op ws.Op, p []byte) error {
	switch op {
	case ws.OpBinary:
		return c.handleFrame(p)
	case ws.OpPing:
		return c.write(ws.OpPong, p)
	case ws.OpClose:
		c.cmu.Lock()
		answered := c.onEnd != nil
		c.goodbye = answered
		c.cmu.Unlock()
		if !answered { // the server's own goodbye: answer it
			_ = c.write(ws.OpClose, p)
		}
		return closeError(p)
	}
	return nil // text frames: a JSON pong, or the isMsgResp auth result; pongs
}

func closeError(p []byte) error {
	if len(p) < 2 {
		return errors.New("the server closed the connection")
	}
	return fmt.Errorf("the server closed the connection (%d %s)", binary.BigEndian.Uint16(p), p[2:])
}

// OnClose implements netloop.Handler: fail what still waits for an answer,
// then tell the engine, unless Close ended it.
func (c *conn) OnClose(err error) {
	c.cmu.Lock()
	c.ended.Store(true)
	onEnd := c.onEnd
	unanswered := c.wait != nil && !c.wait.Stop() // closeWait passed
	dropped := !c.goodbye && !unanswered
	c.cmu.Unlock()
	for _, p := range c.pending.Close() {
		p.cb(nil, errConnClosed)
	}
	if onEnd != nil {
		onEnd(dropped)
		return
	}
	if c.kicked.Load() {
		c.h.Closed(c, ErrKicked, true)
		return
	}
	c.h.Closed(c, err, false)
}
