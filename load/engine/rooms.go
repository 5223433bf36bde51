package engine

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/imbench/imbench/load/plan"
	"golang.org/x/sync/errgroup"
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
	// Taken and registered under the inbox's lock: no arrival is classified
	// against a join time the senders' count does not know yet.
	u.inbox.Join(conv, func(at int64) { u.s.sh.rooms.joined(conv, at) })
	u.mu.Lock()
	u.rooms = append(u.rooms, conv)
	u.mu.Unlock()
	return nil
}

// joinRooms has the session's chatroom members join: senders, and members
// who join at once, before start, LoginParallel at a time; the others
// JoinEvery apart from start, in the background until ctx ends. A member
// who cannot join is warned about and left out: what it misses is not
// expected of it.
func (s *Session) joinRooms(ctx context.Context, start time.Time) {
	p := s.sh.Plan
	type join struct {
		u    *User
		room *plan.RoomSpec
		at   time.Time
	}
	var later []join
	var g errgroup.Group
	g.SetLimit(s.sh.Opts.LoginParallel)
	for ri := range p.Rooms {
		r := &p.Rooms[ri]
		for k, m := range r.Members {
			if m < s.Lo || m >= s.Hi {
				continue
			}
			u := s.users[m-s.Lo]
			if k >= r.Senders && r.JoinEvery > 0 {
				later = append(later, join{u, r, start.Add(time.Duration(k-r.Senders) * r.JoinEvery)})
				continue
			}
			g.Go(func() error {
				u.joinOrWarn(ctx, r)
				return nil
			})
		}
	}
	_ = g.Wait()
	if len(later) == 0 {
		return
	}
	sort.Slice(later, func(i, j int) bool { return later[i].at.Before(later[j].at) })
	go func() {
		for _, j := range later {
			select {
			case <-time.After(time.Until(j.at)):
			case <-ctx.Done():
				return
			}
			go j.u.joinOrWarn(ctx, j.room)
		}
	}()
}

func (u *User) joinOrWarn(ctx context.Context, r *plan.RoomSpec) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := u.join(ctx, r.Conv); err != nil && ctx.Err() == nil {
		u.s.sh.warn("%s joining chatroom %s: %v", u.s.sh.Plan.UserID(u.idx), r.Key, err)
	}
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
