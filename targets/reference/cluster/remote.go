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

// Remote is a gateway's link to the core; it implements core.Backend, so a
// gateway serves its clients as if the core were in-process.
type Remote struct {
	log  *slog.Logger
	conn net.Conn
	wmu  sync.Mutex
	w    *bufio.Writer
	enc  *gob.Encoder

	mu       sync.Mutex
	next     uint64
	pending  map[uint64]chan message
	sessions map[uint64]*core.Session
	ids      map[*core.Session]uint64
	down     bool
	failed   bool // a read or write of the link failed (logged once)
}

var _ core.Backend = (*Remote)(nil)

// Dial links to the core at addr; log says when and why the link is lost.
func Dial(addr string, log *slog.Logger) (*Remote, error) {
	d := net.Dialer{Timeout: 10 * time.Second, KeepAlive: -1} // see listenTCP in package main
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cluster: core at %s: %w", addr, err)
	}
	w := bufio.NewWriter(deadlineConn{conn})
	r := &Remote{log: log, conn: conn, w: w, enc: gob.NewEncoder(w), pending: map[uint64]chan message{},
		sessions: map[uint64]*core.Session{}, ids: map[*core.Session]uint64{}}
	go r.readLoop()
	return r, nil
}

func (r *Remote) readLoop() {
	dec := gob.NewDecoder(bufio.NewReader(r.conn))
	// One Push per message, shared by its recipients here as in the core,
	// so each frame variant is encoded once (the core sends the message
	// once, then pushes without one until the next).
	var push *core.Push
	for {
		var m message
		if err := dec.Decode(&m); err != nil {
			r.lost("link read", err)
			break
		}
		if m.Kind == kindPush && m.Msg != nil {
			push = &core.Push{Msg: m.Msg}
		}
		if m.Kind == kindReply {
			r.mu.Lock()
			ch := r.pending[m.ID]
			delete(r.pending, m.ID)
			r.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		r.mu.Lock()
		s := r.sessions[m.Session]
		r.mu.Unlock()
		if s == nil {
			continue // detached meanwhile
		}
		switch m.Kind {
		case kindPush:
			s.Outlet().Deliver(push, m.At)
		case kindKick:
			s.Outlet().Kick()
		case kindClose:
			s.Outlet().Close()
		}
	}
	// The core is gone: fail what waits, drop every client (they reconnect
	// and are refused until a core is back).
	r.mu.Lock()
	r.down = true
	pend, sess := r.pending, r.sessions
	r.pending, r.sessions = map[uint64]chan message{}, map[uint64]*core.Session{}
	r.mu.Unlock()
	for _, ch := range pend {
		ch <- message{Err: linkDown()}
	}
	for _, s := range sess {
		s.Outlet().Close()
	}
}

func linkDown() *core.Error { return core.ErrUnavailable.With("%s", errLinkDown) }

func (r *Remote) write(q *request) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	err := r.enc.Encode(q)
	if err == nil {
		err = r.w.Flush()
	}
	if err != nil {
		r.lost("link write", err)
	}
	return err
}

// lost logs the link's first failure: after a write fails the buffered
// writer fails every later write, so the link is as good as down.
func (r *Remote) lost(what string, err error) {
	r.mu.Lock()
	first := !r.failed
	r.failed = true
	r.mu.Unlock()
	if first {
		r.log.Warn("cluster: link to the core lost", "op", what, "err", err)
	}
}

func (r *Remote) call(q request) message {
	ch := make(chan message, 1)
	r.mu.Lock()
	if r.down {
		r.mu.Unlock()
		return message{Err: linkDown()}
	}
	r.next++
	q.ID = r.next
	r.pending[q.ID] = ch
	r.mu.Unlock()
	forget := func() {
		r.mu.Lock()
		delete(r.pending, q.ID)
		r.mu.Unlock()
	}
	if err := r.write(&q); err != nil {
		forget()
		return message{Err: linkDown()}
	}
	select {
	case m := <-ch:
		return m
	case <-time.After(30 * time.Second):
		forget()
		return message{Err: core.ErrUnavailable.With("cluster: core did not answer")}
	}
}

// CheckLogin implements core.Backend.
func (r *Remote) CheckLogin(token, userID string, device int) error {
	return r.call(request{Op: opLogin, Token: token, User: userID, Device: device}).err()
}

// Attach implements core.Backend.
func (r *Remote) Attach(s *core.Session) error {
	r.mu.Lock()
	r.next++
	id := r.next
	r.sessions[id] = s
	r.ids[s] = id
	r.mu.Unlock()
	m := r.call(request{Op: opAttach, Session: id, User: s.User, Device: s.Device, Token: s.Token})
	if m.Err != nil {
		r.forget(s)
	}
	return m.err()
}

func (r *Remote) forget(s *core.Session) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := r.ids[s]
	delete(r.ids, s)
	delete(r.sessions, id)
	return id
}

// Detach implements core.Backend.
func (r *Remote) Detach(s *core.Session) {
	if id := r.forget(s); id != 0 {
		r.write(&request{Op: opDetach, Session: id})
	}
}

// Send implements core.Backend.
func (r *Remote) Send(msg *core.Message) (*core.Message, error) {
	m := r.call(request{Op: opSend, Msg: msg})
	return m.Msg, m.err()
}

// MaxSeqs implements core.Backend.
func (r *Remote) MaxSeqs(userID string) map[core.ConvKey]int64 {
	return r.call(request{Op: opMaxSeqs, User: userID}).Seqs
}

// Pull implements core.Backend.
func (r *Remote) Pull(userID string, k core.ConvKey, begin, end, num int64) (core.Page, error) {
	m := r.call(request{Op: opPull, User: userID, Conv: k, Begin: begin, End: end, Num: num})
	return m.Page, m.err()
}
