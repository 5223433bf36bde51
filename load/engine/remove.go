package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/imbench/imbench/load/plan"
)

// Created names, by id, what a run makes on a target: its users, its
// groups and its chatrooms. A runner records it before setup, so a run
// killed at any point leaves it behind for `imbench clean-target`.
type Created struct {
	Prefix string   `json:"prefix"`           // every id the run made begins with it
	Users  int      `json:"users"`            // the users are UserID(0) … UserID(Users-1)
	Groups []string `json:"groups,omitempty"` // group ids
	Rooms  []string `json:"rooms,omitempty"`  // chatroom ids (created at setup or at the first join)
}

// CreatedBy is what plan p's setup and its users' joins make.
func CreatedBy(p *plan.Plan) Created {
	c := Created{Prefix: p.Prefix, Users: p.Users}
	for g := range p.Groups {
		c.Groups = append(c.Groups, p.GroupID(int32(g)))
	}
	for r := range p.Rooms {
		c.Rooms = append(c.Rooms, p.RoomID(int32(r)))
	}
	return c
}

// OwnedBy reports whether the ids are the run's own: named by the run id,
// as every run names them unless its scenario sets a prefix. Ids a
// scenario named may be another run's, or a user's: nothing removes them
// unasked.
func (c Created) OwnedBy(runID string) bool { return c.Prefix == runID+"_" }

// UserID is the id of the run's user i, as its plan named it.
func (c Created) UserID(i int) string { return (&plan.Plan{Prefix: c.Prefix}).UserID(uint32(i)) }

// UserIDs lists the run's users.
func (c Created) UserIDs() []string {
	out := make([]string, c.Users)
	for i := range out {
		out[i] = c.UserID(i)
	}
	return out
}

// Remover is a Protocol whose system's admin API can delete some of what a
// run created.
type Remover interface {
	// Remove deletes c's chatrooms, groups and users where the system's
	// admin API offers it. What the server says it does not have (never
	// created, or removed before) is counted apart, not as removed, so a
	// second Remove of the same run succeeds and removes nothing. The error
	// holds one line per kind of thing that failed.
	Remove(ctx context.Context, c Created) (Removal, error)
}

// Removal is what Remove deleted, what the server did not have, and what
// the system keeps whatever is asked of its API.
type Removal struct {
	Users  int `json:"users"`
	Groups int `json:"groups"`
	Rooms  int `json:"rooms"`
	// Absent: the server answered that it has no such thing (a run whose
	// setup failed before making it, or one removed before).
	UsersAbsent  int      `json:"users_absent,omitempty"`
	GroupsAbsent int      `json:"groups_absent,omitempty"`
	RoomsAbsent  int      `json:"rooms_absent,omitempty"`
	Kept         []string `json:"kept,omitempty"` // one line each: what stays, and why
	// Left: what the clean-up asked to remove and the server still has (by
	// its lookup where the system has one), or that was never asked.
	UsersLeft  int `json:"users_left"`
	GroupsLeft int `json:"groups_left"`
	RoomsLeft  int `json:"rooms_left"`
}

// Left is everything a removal left on the server.
func (r Removal) Left() int { return r.UsersLeft + r.GroupsLeft + r.RoomsLeft }

// ErrAbsent is what a removal's del wraps when the server says it has no
// such thing: neither removed nor failed.
var ErrAbsent = errors.New("the server has no such thing")

// ErrUnconfirmed is what a removal's del wraps when the server timed out and
// its lookups have not yet shown the thing gone: a server with a backlog
// answers so and removes it later. RemoveEachConfirmed looks again once
// everything else is done.
var ErrUnconfirmed = errors.New("the server timed out and still has it")

// Settling: how long, and how often, the unconfirmed removals are looked up
// again once the others are done; lookupAfter bounds the last lookup of
// what is left when the clean-up's own time ran out.
var (
	removeSettle      = 60 * time.Second
	removeSettleEvery = 2 * time.Second
	lookupAfter       = 30 * time.Second
)

// SetRemoveSettle changes how long (and how often) timed-out removals are
// looked up again, for tests; restore puts the defaults back.
func SetRemoveSettle(total, every time.Duration) (restore func()) {
	oldTotal, oldEvery := removeSettle, removeSettleEvery
	removeSettle, removeSettleEvery = total, every
	return func() { removeSettle, removeSettleEvery = oldTotal, oldEvery }
}

// maxRemoveFailures stops a removal that keeps failing (a server gone, a
// secret refused) before it has tried every id, each failure possibly a
// request timeout. A removal the server answered with a timeout is not a
// failure: it is looked up again first.
const maxRemoveFailures = 50

// RemoveEach deletes ids with del, at most parallel at a time, and returns
// how many it deleted and how many the server did not have (del's
// ErrAbsent). Its error is one line: how many of what failed, and the
// first failure. It stops once maxRemoveFailures have failed or ctx ends.
func RemoveEach(ctx context.Context, what string, ids []string, parallel int, del func(ctx context.Context, id string) error) (removed, absent int, err error) {
	return RemoveEachConfirmed(ctx, what, ids, parallel, del, nil)
}

// RemoveEachConfirmed is RemoveEach where del may answer ErrUnconfirmed and
// gone looks an id up (true: the server no longer has it). An unconfirmed
// removal is no failure: once every id was tried, gone looks those up again
// every removeSettleEvery for up to removeSettle. Then whatever is not known
// gone (failed, unconfirmed, or not tried when the time or the failures ran
// out) is looked up once more, so that the count of what is left is the
// server's: a lookup that finds one gone counts it removed (absent when it
// was never asked). Its error line says how many are still there.
func RemoveEachConfirmed(ctx context.Context, what string, ids []string, parallel int, del func(ctx context.Context, id string) error,
	gone func(ctx context.Context, id string) bool) (removed, absent int, err error) {
	var (
		mu      sync.Mutex
		first   error
		wg      sync.WaitGroup
		stopped atomic.Bool
		tally   = removeTally{pending: map[string]error{}, failed: map[string]error{}, tried: map[string]bool{}}
	)
	next := make(chan string)
	for range max(parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range next {
				if stopped.Load() {
					continue // stopping: what is left is not tried
				}
				err := del(ctx, id)
				mu.Lock()
				tally.tried[id] = true
				switch {
				case errors.Is(err, ErrAbsent):
					tally.absent++
				case errors.Is(err, ErrUnconfirmed) && gone != nil:
					tally.pending[id] = err
				case err != nil && ctx.Err() != nil:
					delete(tally.tried, id) // cut short by the clean-up's end: not tried, not failed
				case err != nil:
					tally.failed[id] = err
					if first == nil {
						first = err
					}
					stopped.Store(len(tally.failed) >= maxRemoveFailures)
				default:
					tally.removed++
				}
				mu.Unlock()
			}
		}()
	}
	for _, id := range ids {
		if ctx.Err() != nil || stopped.Load() {
			break
		}
		next <- id
	}
	close(next)
	wg.Wait()
	tally.removed += settle(ctx, tally.pending, parallel, gone)
	var left []string
	for _, id := range ids {
		if _, failed := tally.failed[id]; failed || tally.pending[id] != nil || !tally.tried[id] {
			left = append(left, id)
		}
	}
	looked := false
	if gone != nil && len(left) > 0 && !errors.Is(ctx.Err(), context.Canceled) {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupAfter)
		found := lookUp(lctx, left, parallel, gone)
		cancel()
		looked = true
		var still []string
		for _, id := range left {
			switch {
			case !found[id]:
				still = append(still, id)
			case tally.tried[id]:
				tally.removed++
			default:
				tally.absent++
			}
		}
		left = still
	}
	if len(left) == 0 {
		return tally.removed, tally.absent, nil
	}
	return tally.removed, tally.absent, errors.New(tally.line(what, ids, left, looked, first, context.Cause(ctx)))
}

// removeTally is what a removal made of each id.
type removeTally struct {
	removed, absent int
	pending         map[string]error // the server timed out; not yet seen gone
	failed          map[string]error
	tried           map[string]bool
}

// line says what is left, and why: "users: 45 of 120 still on the server
// by its lookup after the clean-up: 30 failed (the first: …), 15 not tried
// (context deadline exceeded)".
func (t removeTally) line(what string, ids, left []string, looked bool, first, cause error) string {
	var failed, timedOut, untried int
	for _, id := range left {
		switch {
		case t.failed[id] != nil:
			failed++
		case t.pending[id] != nil:
			timedOut++
		default:
			untried++
		}
	}
	msg := fmt.Sprintf("%s: %d of %d not removed", what, len(left), len(ids))
	if looked {
		msg = fmt.Sprintf("%s: %d of %d still on the server by its lookup after the clean-up", what, len(left), len(ids))
	}
	var parts []string
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed (the first: %v)", failed, first))
	}
	if timedOut > 0 {
		parts = append(parts, fmt.Sprintf("%d timed out and not seen gone within %s", timedOut, removeSettle))
	}
	if untried > 0 {
		why := fmt.Sprint(cause)
		if failed >= maxRemoveFailures {
			why = fmt.Sprintf("stopped after %d failures", maxRemoveFailures)
		}
		parts = append(parts, fmt.Sprintf("%d not tried (%s)", untried, why))
	}
	return msg + ": " + strings.Join(parts, ", ")
}

// lookUp asks gone of each id, at most parallel at a time, until ctx ends.
func lookUp(ctx context.Context, ids []string, parallel int, gone func(context.Context, string) bool) map[string]bool {
	var (
		mu    sync.Mutex
		g     errgroup.Group
		found = map[string]bool{}
	)
	g.SetLimit(max(parallel, 1))
	for _, id := range ids {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if gone(ctx, id) {
				mu.Lock()
				found[id] = true
				mu.Unlock()
			}
			return nil
		})
	}
	g.Wait()
	return found
}

// settle looks up the pending removals until each is gone (dropped from
// pending), removeSettle has passed or ctx ends, and returns how many went.
func settle(ctx context.Context, pending map[string]error, parallel int, gone func(context.Context, string) bool) int {
	deadline := time.Now().Add(removeSettle)
	went := 0
	for len(pending) > 0 && ctx.Err() == nil && time.Now().Before(deadline) {
		ids := make([]string, 0, len(pending))
		for id := range pending {
			ids = append(ids, id)
		}
		for id := range lookUp(ctx, ids, parallel, gone) {
			delete(pending, id)
			went++
		}
		if len(pending) == 0 {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(removeSettleEvery):
		}
	}
	return went
}
