// Package awaiting keeps a connection's requests that wait for their
// answers, by the ID the answer carries, with one timer for all of them,
// armed for the first one due. A timer made and stopped for each request
// cost a driver a few per cent of its CPU (a Wildfire pull is a request).
package awaiting

import (
	"errors"
	"sync"
	"time"
)

var (
	// ErrClosed: the connection ended; nothing more waits on it.
	ErrClosed = errors.New("connection closed")
	// ErrBusy: a request waits under that ID already.
	ErrBusy = errors.New("a request waits under that ID")
)

// Set is the requests waiting on one connection.
type Set[K comparable, V any] struct {
	timeout time.Duration
	expired func(V) // each request whose time is up, outside the lock

	mu     sync.Mutex
	m      map[K]entry[V]
	closed bool
	timer  *time.Timer
	armed  bool
}

type entry[V any] struct {
	v   V
	due time.Time
}

// New is an empty set whose requests wait timeout each; expired is told of
// each one not answered in time, once it is out of the set.
func New[K comparable, V any](timeout time.Duration, expired func(V)) *Set[K, V] {
	return &Set[K, V]{timeout: timeout, expired: expired, m: map[K]entry[V]{}}
}

// Add keeps v under k until Take, its timeout or Close.
func (s *Set[K, V]) Add(k K, v V) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if _, busy := s.m[k]; busy {
		return ErrBusy
	}
	s.m[k] = entry[V]{v: v, due: time.Now().Add(s.timeout)}
	if !s.armed {
		s.armed = true
		if s.timer == nil {
			s.timer = time.AfterFunc(s.timeout, s.expire)
		} else {
			s.timer.Reset(s.timeout)
		}
	}
	return nil
}

// Take removes the request waiting under k: whoever takes it answers it.
func (s *Set[K, V]) Take(k K) (V, bool) {
	s.mu.Lock()
	e, ok := s.m[k]
	if ok {
		delete(s.m, k)
	}
	s.mu.Unlock()
	return e.v, ok
}

// Close ends the set and gives what still waited, for its owner to fail.
func (s *Set[K, V]) Close() []V {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
	}
	s.armed = false
	left := make([]V, 0, len(s.m))
	for _, e := range s.m {
		left = append(left, e.v)
	}
	clear(s.m)
	return left
}

// expire fails the requests whose time is up and arms the timer for the
// next one due, while any waits.
func (s *Set[K, V]) expire() {
	now := time.Now()
	var late []V
	var next time.Time
	s.mu.Lock()
	for k, e := range s.m {
		switch {
		case !e.due.After(now):
			late = append(late, e.v)
			delete(s.m, k)
		case next.IsZero() || e.due.Before(next):
			next = e.due
		}
	}
	s.armed = !s.closed && !next.IsZero()
	if s.armed {
		s.timer.Reset(next.Sub(now))
	}
	s.mu.Unlock()
	for _, v := range late {
		s.expired(v)
	}
}
