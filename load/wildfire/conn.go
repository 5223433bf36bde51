package wildfire

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/imbench/imbench/load/awaiting"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/netloop"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// ErrKicked ends a connection the server replaced (ROFL "1", §14).
var ErrKicked = errors.New("kicked by the server (ROFL: another client of the user logged in)")

var errConnClosed = awaiting.ErrClosed

// closeWait bounds how long Close waits for the server to close the
// connection after our DISCONNECT.
const closeWait = time.Second

// conn is one user's MQTT connection. Bytes arrive through netloop (OnData,
// OnClose), one call at a time.
type conn struct {
	d      *Driver
	user   uint32
	uid    string
	h      engine.Handler
	st     netloop.Stream
	s      *session
	frames netloop.Frames // frames cut at a read's end

	acks   *awaiting.Set[uint16, *await] // requests waiting for their PUBACK, by packet id
	wrote  atomic.Int64                  // unix ns of the last request or PINGREQ written: each draws an answer
	nextID atomic.Uint32

	fmu    sync.Mutex
	feeds  [2]feed // by pull type
	joined bool    // in a chatroom: syncs pull its messages too

	kicked atomic.Bool
	ended  atomic.Bool

	cmu         sync.Mutex
	onEnd       func(dropped bool) // set by Close: our DISCONNECT is out
	goodbyeLost bool               // the DISCONNECT could not be written
	wait        *time.Timer
}

type await struct {
	done  func(wire.Puback, error)
	topic string
}

// unanswered fails a request no PUBACK came to in time.
func (c *conn) unanswered(w *await) {
	w.done(wire.Puback{}, fmt.Errorf("%w: no PUBACK to %s within %s", engine.ErrUnanswered, w.topic, c.d.cfg.Timeout))
}

var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// request sends plain as an encrypted QoS 1 PUBLISH on topic; done gets
// its PUBACK, or the failure.
func (c *conn) request(topic string, plain []byte, done func(wire.Puback, error)) error {
	w := &await{done: done, topic: topic}
	var id uint16
	for tries := 0; ; tries++ {
		if id = uint16(c.nextID.Add(1)); id == 0 {
			continue
		}
		err := c.acks.Add(id, w)
		if err == nil {
			break
		}
		if errors.Is(err, errConnClosed) {
			return err
		}
		if tries > 1<<16 {
			return fmt.Errorf("no packet id free: %d requests wait", 1<<16-1)
		}
	}
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	b, err := wire.AppendRequest((*bp)[:0], topic, id, c.s.cipher, wire.HourNow(), plain)
	if err == nil {
		*bp = b
		if err = c.st.Write(b, c.d.cfg.Timeout); err == nil {
			c.wrote.Store(time.Now().UnixNano())
		}
	}
	if err != nil {
		if t, ok := c.acks.Take(id); ok && t == w {
			return err
		}
	}
	return nil
}

// Ping implements engine.Conn.
func (c *conn) Ping() error {
	err := c.st.Write(wire.AppendPingreq(nil), c.d.cfg.Timeout)
	if err == nil {
		c.wrote.Store(time.Now().UnixNano())
	}
	return err
}

// WroteSince implements engine.Talker: the server's idle timer counts
// every packet, and each of ours draws a PUBACK or PINGRESP.
func (c *conn) WroteSince(t time.Time) bool { return c.wrote.Load() >= t.UnixNano() }

// Alive implements engine.Conn.
func (c *conn) Alive() bool { return !c.ended.Load() }

// Close implements engine.Conn: DISCONNECT e0 00, which the server answers
// by closing the connection (closeWait bounds the wait). A connection that
// had ended before the goodbye went out was dropped.
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
	if c.st.Write(wire.AppendDisconnect(nil), c.d.cfg.Timeout) != nil {
		c.cmu.Lock()
		c.goodbyeLost = true // the server was gone before the goodbye
		c.cmu.Unlock()
		c.st.Close()
	}
}

// OnData implements netloop.Handler: frames may span reads.
func (c *conn) OnData(b []byte) error { return c.frames.Feed(b, c) }

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
	case wire.TypePuback:
		a, err := wire.DecodePuback(body)
		if err != nil {
			return err
		}
		if w, ok := c.acks.Take(a.PacketID); ok {
			w.done(a, nil)
		}
	case wire.TypePublish:
		p, err := wire.DecodePublish(flags, body)
		if err != nil {
			return err
		}
		return c.onPush(p)
	case wire.TypePingresp:
	default:
		return fmt.Errorf("unexpected %s from the server", t)
	}
	return nil
}

// onPush handles a server push: MN starts a pull, ROFL says this login was
// replaced; the others (MS of transparent messages, settings, friends)
// carry nothing a benchmark message uses.
func (c *conn) onPush(p wire.Publish) error {
	switch p.Topic {
	case wire.TopicNotifyMessage:
		t, head, err := wire.DecodeNotify(p.Payload)
		if err != nil {
			return fmt.Errorf("MN: %w", err)
		}
		if t == wire.PullNormal || t == wire.PullChatroom {
			c.notified(t, head)
		}
	case wire.TopicNotifyOffline:
		c.kicked.Store(true)
		return ErrKicked
	}
	return nil
}

// OnClose implements netloop.Handler: fail what still waits for a PUBACK,
// then tell the engine, unless Close ended it.
func (c *conn) OnClose(err error) {
	c.cmu.Lock()
	c.ended.Store(true)
	onEnd, dropped := c.onEnd, c.goodbyeLost
	if c.wait != nil {
		c.wait.Stop()
	}
	c.cmu.Unlock()
	for _, w := range c.acks.Close() {
		w.done(wire.Puback{}, errConnClosed)
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
