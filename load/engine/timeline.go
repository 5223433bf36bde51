package engine

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// event is one step of the session's timeline: users who log in at a
// time (timed), log out for a spell, or log in again after it.
type event struct {
	at    time.Duration
	kind  int // timedLogin, logout, back
	users []*User
}

const (
	timedLogin = iota
	logout
	back
)

// timeline is the session's events in time order.
func (s *Session) timeline() []event {
	p := s.sh.Plan
	byTime := map[time.Duration][]*User{}
	for _, u := range s.users {
		if p.Login[u.idx] == plan.Timed {
			byTime[p.LoginAt[u.idx]] = append(byTime[p.LoginAt[u.idx]], u)
		}
	}
	var evs []event
	for at, us := range byTime {
		evs = append(evs, event{at: at, kind: timedLogin, users: us})
	}
	for _, sp := range p.Spells {
		var us []*User
		for _, u := range sp.Users {
			if u >= s.Lo && u < s.Hi {
				us = append(us, s.users[u-s.Lo])
			}
		}
		if len(us) > 0 {
			evs = append(evs, event{at: sp.At, kind: logout, users: us}, event{at: sp.At + sp.For, kind: back, users: us})
		}
	}
	slices.SortStableFunc(evs, func(a, b event) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return a.kind - b.kind
	})
	return evs
}

// Timeline runs the session's timeline from start: the plan's timed
// logins (as Login does them) and its spells logged out, each user logging
// in again as after a reconnect, pulling what it missed. It returns once
// the last event is done, or when the session ends.
func (s *Session) Timeline(start time.Time) {
	for _, ev := range s.timeline() {
		select {
		case <-time.After(time.Until(start.Add(ev.at))):
		case <-s.ctx.Done():
			return
		}
		switch ev.kind {
		case timedLogin:
			in := map[*User]bool{}
			for _, u := range ev.users {
				in[u] = true
			}
			s.loginWhere(func(u *User) bool { return in[u] })
		case logout:
			for _, u := range ev.users {
				u.logout()
			}
		case back:
			s.loginBack(ev.users)
		}
	}
}

// logout ends the user's connection as a client that logs out does: no
// reconnect follows, and a reconnect under way gives up.
func (u *User) logout() {
	u.mu.Lock()
	c := u.conn
	u.conn, u.away = nil, true
	if c != nil {
		u.markLeft(verify.CatchupReturn)
	}
	u.mu.Unlock()
	if c == nil {
		return
	}
	s := u.s
	c.Close(func(dropped bool) {
		if dropped { // the server closed it before it read our goodbye
			s.Tally.Disconnects.Add(1)
			s.Tally.Dropped[DropServerClosed].Add(1)
		}
		s.sh.addOnline(-1)
	})
	s.Tally.Logouts.Add(1)
}

// loginBack logs users in again after a spell away, LoginParallel at a
// time, each as after a reconnect (its sync pulls what it missed); one
// whose attempt fails goes on as a dropped user does, with backoff.
func (s *Session) loginBack(users []*User) {
	sem := make(chan struct{}, s.sh.Opts.LoginParallel)
	var wg sync.WaitGroup
	for _, u := range users {
		u.mu.Lock()
		u.away = false
		online := u.conn != nil
		u.mu.Unlock()
		if online || s.closing.Load() {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ctx, cancel := context.WithTimeout(WithAttempt(s.ctx, 1), 30*time.Second)
			err := u.login(ctx, true)
			cancel()
			if err == nil {
				s.Tally.LoginsBack.Add(1)
				return
			}
			s.sh.warn("%s: login after a spell away: %v", s.sh.Plan.UserID(u.idx), err)
			u.mu.Lock()
			again := !u.reconnect
			u.reconnect = true
			u.mu.Unlock()
			if again {
				s.sh.inflight.Add(1)
				go u.relogin()
			}
		}()
	}
	wg.Wait()
}
