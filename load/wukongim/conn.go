package wukongim

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/imbench/imbench/load/awaiting"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/netloop"
	"github.com/imbench/imbench/load/ws"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// ErrKicked ends a connection the server replaced (DISCONNECT reason 12).
var ErrKicked = errors.New("kicked by the server (DISCONNECT: login in other device)")

var errConnClosed = awaiting.ErrClosed

// closeWait bounds the wait for the server to answer our DISCONNECT: a
// server that ignores it (a real v2 server does) keeps the connection open,
// and we close it then.
const closeWait = time.Second

// conn is one user's connection. Bytes arrive through netloop (OnData,
// OnClose), one call at a time on a loop goroutine.
type conn struct {
	d       *Driver
	user    uint32
	uid     string
	h       engine.Handler
	st      netloop.Stream
	ws      bool           // frames travel in WebSocket binary messages
	wsrd    ws.Reader      // the WebSocket layer, when ws
	frames  netloop.Frames // a WKProto frame cut at a read's end
	version uint8
	cipher  *wire.Cipher // nil: the server runs without encryption

	// RECVACKs not yet written: held up to the driver's ack delay and
	// written together, one write for all (Flush).
	rmu      sync.Mutex
	recvacks []byte

	seq    atomic.Uint32                 // clientSeq of SENDs
	acks   *awaiting.Set[uint32, *await] // SENDs waiting for their SENDACK, by clientSeq
	kicked atomic.Bool
	ended  atomic.Bool

	cmu      sync.Mutex
	onEnd    func(dropped bool) // set by Close: our DISCONNECT is out
	answered bool               // the server answered our DISCONNECT
	wait     *time.Timer
}

type await struct {
	conv uint32 // the plan conversation of the message sent
	done func(error)
}

// unanswered fails a SEND no SENDACK came to in time.
func (c *conn) unanswered(w *await) {
	w.done(fmt.Errorf("%w: no SENDACK within %s", engine.ErrUnanswered, c.d.cfg.Timeout))
}

var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// write sends one packet (in one WebSocket message, over ws).
func (c *conn) write(p wire.Packet) error {
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	b, err := p.Append((*bp)[:0], c.version)
	if err != nil {
		return err
	}
	if c.ws {
		fp := bufs.Get().(*[]byte)
		defer bufs.Put(fp)
		*fp = ws.AppendFrame((*fp)[:0], ws.OpBinary, b)
		*bp = b
		return c.st.Write(*fp, c.d.cfg.Timeout)
	}
	*bp = b
	return c.st.Write(b, c.d.cfg.Timeout)
}

// Ping implements engine.Conn: WKProto's one-byte PING.
func (c *conn) Ping() error { return c.write(wire.Ping{}) }

// Alive implements engine.Conn.
func (c *conn) Alive() bool { return !c.ended.Load() }

// Close implements engine.Conn: a DISCONNECT, then the server's answer, its
// closing the connection, or closeWait ends it. Only a connection that ended
// without an answer had been dropped.
func (c *conn) Close(ended func(dropped bool)) {
	c.cmu.Lock()
	if c.ended.Load() {
		c.cmu.Unlock()
		ended(true)
		return
	}
	c.onEnd = ended
	c.wait = time.AfterFunc(closeWait, func() {
		c.cmu.Lock()
		c.answered = true // no answer is the real server's way: not a drop
		c.cmu.Unlock()
		c.st.Close()
	})
	c.cmu.Unlock()
	c.Flush() // what was received is acknowledged before we leave
	if c.write(wire.Disconnect{}) != nil {
		c.st.Close()
	}
}

// OnData implements netloop.Handler. The RECVACKs of what it brought go
// out with the next flush: at the read's end without an ack delay, else
// up to that much later with those of the reads meanwhile.
func (c *conn) OnData(b []byte) error {
	err := c.read(b)
	c.rmu.Lock()
	held := len(c.recvacks) > 0
	c.rmu.Unlock()
	switch {
	case !held:
	case c.d.cfg.AckDelay > 0 && err == nil:
		c.st.FlushAfter(c.d.cfg.AckDelay)
	default: // no delay, or the connection ends with this read
		c.Flush()
	}
	return err
}

// queueRecvack holds a RECVACK for the next flush.
func (c *conn) queueRecvack(a wire.Recvack) error {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	var err error
	c.recvacks, err = a.Append(c.recvacks, c.version)
	return err
}

// Flush implements netloop.Flusher: the held RECVACKs in one write. A
// failed write ends the connection (netloop's Write does that).
func (c *conn) Flush() {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if len(c.recvacks) == 0 {
		return
	}
	out := c.recvacks
	if c.ws {
		out = ws.AppendFrame(nil, ws.OpBinary, c.recvacks)
	}
	c.st.Write(out, c.d.cfg.Timeout)
	c.recvacks = c.recvacks[:0]
}

func (c *conn) read(b []byte) error {
	if !c.ws {
		return c.feed(b)
	}
	return c.wsrd.Feed(b, func(op ws.Op, p []byte) error {
		switch op {
		case ws.OpBinary:
			return c.feed(p)
		case ws.OpPing:
			return c.st.Write(ws.AppendFrame(nil, ws.OpPong, p), c.d.cfg.Timeout)
		case ws.OpClose:
			return errors.New("the server closed the WebSocket")
		}
		return nil
	})
}

// feed splits WKProto frames out of the byte stream; a frame may span reads.
func (c *conn) feed(b []byte) error { return c.frames.Feed(b, c) }

// Frame implements netloop.Framer.
func (c *conn) Frame(stream []byte) (int, error) {
	t, flags, body, n, err := wire.SplitFrame(stream)
	if err != nil || n == 0 {
		return 0, err
	}
	return n, c.handle(t, flags, body)
}

func (c *conn) handle(t wire.PacketType, flags uint8, body []byte) error {
	switch t {
	case wire.TypeRecv:
		return c.onRecv(flags, body)
	case wire.TypeSendack:
		a, err := wire.DecodeSendack(flags, body, c.version)
		if err != nil {
			return err
		}
		if w, ok := c.acks.Take(a.ClientSeq); ok {
			if a.ReasonCode != wire.ReasonSuccess {
				w.done(fmt.Errorf("SENDACK reason %d %s", a.ReasonCode, a.ReasonCode))
				return nil
			}
			if o, ok := c.h.(engine.OwnSeqs); ok && a.MessageSeq > 0 {
				o.Sent(w.conv, uint64(a.MessageSeq))
			}
			w.done(nil)
		}
	case wire.TypeDisconnect:
		dis, err := wire.DecodeDisconnect(flags, body, c.version)
		if err != nil {
			return err
		}
		c.cmu.Lock()
		closing := c.onEnd != nil
		c.answered = closing
		c.cmu.Unlock()
		if !closing && dis.ReasonCode == wire.ReasonConnectKick {
			c.kicked.Store(true)
		}
		return fmt.Errorf("the server disconnected (reason %d %s %s)", dis.ReasonCode, dis.ReasonCode, dis.Reason)
	}
	return nil // PONG, EVENT, SUBACK
}

// OnClose implements netloop.Handler: fail what still waits for a SENDACK,
// then tell the engine, unless Close ended it.
func (c *conn) OnClose(err error) {
	c.cmu.Lock()
	c.ended.Store(true)
	onEnd := c.onEnd
	if c.wait != nil {
		c.wait.Stop()
	}
	dropped := !c.answered
	c.cmu.Unlock()
	for _, w := range c.acks.Close() {
		w.done(errConnClosed)
	}
	switch {
	case onEnd != nil:
		onEnd(dropped)
	case c.kicked.Load():
		c.h.Closed(c, ErrKicked, true)
	default:
		c.h.Closed(c, err, false)
	}
}
