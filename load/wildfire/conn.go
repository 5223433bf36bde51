package wildfire

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/netloop"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// ErrKicked ends a connection the server replaced (ROFL "1", §14).
var ErrKicked = errors.New("kicked by the server (ROFL: another client of the user logged in)")

var errConnClosed = errors.New("connection closed")

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

	amu    sync.Mutex
	acks   map[uint16]*await // requests waiting for their PUBACK, by packet id
	nextID uint16
	// One timer for all of them, armed for the first one due while any
	// waits: a timer per request was made and stopped at every pull.
	overdue *time.Timer
	armed   bool

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
	due   time.Time
}

var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// request sends plain as an encrypted QoS 1 PUBLISH on topic; done gets
// its PUBACK, or the failure.
func (c *conn) request(topic string, plain []byte, done func(wire.Puback, error)) error {
	w := &await{done: done, topic: topic, due: time.Now().Add(c.d.cfg.Timeout)}
	c.amu.Lock()
	if c.acks == nil {
		c.amu.Unlock()
		return errConnClosed
	}
	id := c.nextID
	for {
		id++
		if _, busy := c.acks[id]; id != 0 && !busy {
			break
		}
	}
	c.nextID = id
	c.acks[id] = w
	if !c.armed {
		c.armed = true
		if c.overdue == nil {
			c.overdue = time.AfterFunc(c.d.cfg.Timeout, c.expire)
		} else {
			c.overdue.Reset(c.d.cfg.Timeout)
		}
	}
	c.amu.Unlock()
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	b, err := wire.AppendRequest((*bp)[:0], topic, id, c.s.cipher, wire.HourNow(), plain)
	if err == nil {
		*bp = b
		err = c.st.Write(b, c.d.cfg.Timeout)
	}
	if err != nil && c.take(id) == w {
		return err
	}
	return nil
}

// take removes the request waiting on id; whoever takes it answers it.
func (c *conn) take(id uint16) *await {
	c.amu.Lock()
	w := c.acks[id]
	delete(c.acks, id)
	c.amu.Unlock()
	return w
}

// expire fails the requests whose time is up and arms the timer again
// for the next one due, while any waits.
func (c *conn) expire() {
	now := time.Now()
	var late []*await
	var next time.Time
	c.amu.Lock()
	for id, w := range c.acks {
		switch {
		case !w.due.After(now):
			late = append(late, w)
			delete(c.acks, id)
		case next.IsZero() || w.due.Before(next):
			next = w.due
		}
	}
	c.armed = !next.IsZero()
	if c.armed {
		c.overdue.Reset(next.Sub(now))
	}
	c.amu.Unlock()
	for _, w := range late {
		w.done(wire.Puback{}, fmt.Errorf("%w: no PUBACK to %s within %s", engine.ErrUnanswered, w.topic, c.d.cfg.Timeout))
	}
}

// Ping implements engine.Conn.
func (c *conn) Ping() error { return c.st.Write(wire.AppendPingreq(nil), c.d.cfg.Timeout) }

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
		if w := c.take(a.PacketID); w != nil {
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
	c.amu.Lock()
	left := c.acks
	c.acks = nil
	if c.overdue != nil {
		c.overdue.Stop()
	}
	c.armed = false
	c.amu.Unlock()
	for _, w := range left {
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
