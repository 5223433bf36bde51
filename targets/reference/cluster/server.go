package cluster

import (
	"bufio"
	"encoding/gob"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
)

// Serve accepts gateway links on l until it is closed.
func Serve(l net.Listener, c *core.Core, log *slog.Logger) error {
	for {
		conn, err := l.Accept()
		if err != nil {
			return err
		}
		go serveGateway(conn, c, log)
	}
}

// gatewayLink is the core's side of one gateway.
type gatewayLink struct {
	c        *core.Core
	out      chan message
	done     chan struct{}
	once     sync.Once
	why      string // the first reason the link was cut, set under once
	mu       sync.Mutex
	sessions map[uint64]*core.Session
}

func serveGateway(conn net.Conn, c *core.Core, log *slog.Logger) {
	var readErr error
	g := &gatewayLink{c: c, out: make(chan message, 1<<16), done: make(chan struct{}), sessions: map[uint64]*core.Session{}}
	log = log.With("gateway", conn.RemoteAddr().String())
	log.Info("gateway linked")
	go g.writeLoop(conn)
	defer func() {
		g.cut("link read: %v", readErr)
		conn.Close()
		g.mu.Lock()
		left := g.sessions
		g.sessions = nil
		g.mu.Unlock()
		for _, s := range left {
			c.Detach(s)
		}
		log.Info("gateway gone", "sessions", len(left), "why", g.why)
	}()
	dec := gob.NewDecoder(bufio.NewReader(conn))
	for {
		var r request
		if readErr = dec.Decode(&r); readErr != nil {
			return
		}
		switch r.Op {
		case opAttach: // in order with detach
			s := core.NewSession(r.User, r.Device, r.Token, &remoteOutlet{g: g, id: r.Session})
			err := c.Attach(s)
			if err == nil {
				g.mu.Lock()
				g.sessions[r.Session] = s
				g.mu.Unlock()
			}
			g.send(message{ID: r.ID, Kind: kindReply, Err: refusal(err)})
		case opDetach:
			g.mu.Lock()
			s := g.sessions[r.Session]
			delete(g.sessions, r.Session)
			g.mu.Unlock()
			if s != nil {
				c.Detach(s)
			}
		default:
			go g.answer(r)
		}
	}
}

func (g *gatewayLink) answer(r request) {
	m := message{ID: r.ID, Kind: kindReply}
	var err error
	switch r.Op {
	case opLogin:
		err = g.c.CheckLogin(r.Token, r.User, r.Device)
	case opSend:
		m.Msg, err = g.c.Send(r.Msg)
	case opMaxSeqs:
		m.Seqs = g.c.MaxSeqs(r.User)
	case opPull:
		m.Page, err = g.c.Pull(r.User, r.Conv, r.Begin, r.End, r.Num)
	}
	m.Err = refusal(err)
	g.send(m)
}

// send queues a message to the gateway; a gateway that cannot keep up is
// cut off (its sessions are detached, its clients reconnect).
func (g *gatewayLink) send(m message) bool {
	select {
	case g.out <- m:
		return true
	case <-g.done:
		return false
	default:
		g.cut("its queue of %d messages is full: the gateway does not read", cap(g.out))
		return false
	}
}

// cut ends the link, keeping the first reason given.
func (g *gatewayLink) cut(format string, args ...any) {
	g.once.Do(func() {
		g.why = fmt.Sprintf(format, args...)
		close(g.done)
	})
}

func (g *gatewayLink) writeLoop(conn net.Conn) {
	w := bufio.NewWriter(deadlineConn{conn})
	enc := gob.NewEncoder(w)
	fail := func(err error) {
		g.cut("link write: %v", err)
		conn.Close()
	}
	var last *core.Message
	for {
		select {
		case m := <-g.out:
			// A message fanned out to many sessions of this gateway goes
			// over the link once: a push without one repeats the last.
			if m.Kind == kindPush {
				if m.Msg == last {
					m.Msg = nil
				} else {
					last = m.Msg
				}
			}
			if err := enc.Encode(&m); err != nil {
				fail(err)
				return
			}
			if len(g.out) == 0 {
				if err := w.Flush(); err != nil {
					fail(err)
					return
				}
			}
		case <-g.done:
			conn.Close()
			return
		}
	}
}

// remoteOutlet is a session held by a gateway, as the core sees it.
type remoteOutlet struct {
	g  *gatewayLink
	id uint64
}

func (o *remoteOutlet) Deliver(p *core.Push, at time.Time) bool {
	return o.g.send(message{Kind: kindPush, Session: o.id, Msg: p.Msg, At: at})
}

func (o *remoteOutlet) Kick() { o.g.send(message{Kind: kindKick, Session: o.id}) }

// Close asks the gateway to drop the connection. Whether the client's
// goodbye got there first is known only there, so a drop is assumed.
func (o *remoteOutlet) Close() bool {
	o.g.send(message{Kind: kindClose, Session: o.id})
	return true
}
