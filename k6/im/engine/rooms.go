package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// RoomConn is a connection that can join chatrooms; a protocol that
// carries plan.Room conversations implements it.
type RoomConn interface {
	// Join enters chatroom conv; done reports the server's answer.
	Join(conv uint32, done func(error)) error
}

// rooms records when members joined each chatroom (µs, as their join was
// acknowledged), so that a message expects exactly those present when it
// was sent.
type rooms struct {
	mu    sync.Mutex
	joins map[uint32][]int64 // ascending
}

func (r *rooms) joined(conv uint32, atUs int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.joins == nil {
		r.joins = map[uint32][]int64{}
	}
	j := r.joins[conv]
	i := sort.Search(len(j), func(i int) bool { return j[i] > atUs })
	j = append(j, 0)
	copy(j[i+1:], j[i:])
	j[i] = atUs
	r.joins[conv] = j
}

// present counts the members of conv who had joined at atUs.
func (r *rooms) present(conv uint32, atUs int64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := r.joins[conv]
	return sort.Search(len(j), func(i int) bool { return j[i] > atUs })
}

var errNoRooms = errors.New("the protocol's connections cannot join chatrooms")

// join enters chatroom conv and waits for the answer.
func (u *User) join(ctx context.Context, conv uint32) error {
	c, ok := u.current().(RoomConn)
	if !ok {
		if u.current() == nil {
			return errors.New("offline")
		}
		return errNoRooms
	}
	done := make(chan error, 1)
	if err := c.Join(conv, func(err error) { done <- err }); err != nil {
		return err
	}
	select {
	case err := <-done:
		if err != nil {
			return err
		}
	case <-ctx.Done():
		return ctx.Err()
	}
	if at := time.Now().UnixMicro(); u.inbox.Join(conv, at) {
		u.s.sh.rooms.joined(conv, at)
	}
	u.mu.Lock()
	u.rooms = append(u.rooms, conv)
	u.mu.Unlock()
	return nil
}

// joinRooms has the session's chatroom members join: senders, and members
// who join at once, before start; the others JoinEvery apart from start,
// in the background until stop.
func (s *Session) joinRooms(start time.Time, stop <-chan time.Time) error {
	p := s.sh.Plan
	var later []func()
	for ri := range p.Rooms {
		r := &p.Rooms[ri]
		conv := r.Conv
		for k, m := range r.Members {
			if m < s.Lo || m >= s.Hi {
				continue
			}
			u := s.users[m-s.Lo]
			if k < r.Senders || r.JoinEvery == 0 {
				ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
				err := u.join(ctx, conv)
				cancel()
				if err != nil {
					return fmt.Errorf("%s joining chatroom %s: %w", p.UserID(m), r.Key, err)
				}
				continue
			}
			at := start.Add(time.Duration(k-r.Senders) * r.JoinEvery)
			later = append(later, func() {
				select {
				case <-time.After(time.Until(at)):
				case <-stop:
					return
				case <-s.ctx.Done():
					return
				}
				ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
				defer cancel()
				if err := u.join(ctx, conv); err != nil {
					s.sh.warn("%s joining chatroom %s: %v", p.UserID(m), r.Key, err)
				}
			})
		}
	}
	for _, f := range later {
		go f()
	}
	return nil
}

// rejoin enters again the chatrooms a user was in before its connection
// dropped; messages sent meanwhile were missed, by design of a chatroom.
func (u *User) rejoin(ctx context.Context) {
	u.mu.Lock()
	rs := u.rooms
	u.rooms = nil
	u.mu.Unlock()
	for _, conv := range rs {
		if err := u.join(ctx, conv); err != nil {
			u.s.sh.warn("%s rejoining a chatroom: %v", u.s.sh.Plan.UserID(u.idx), err)
		}
	}
}
