package engine

import (
	"context"
	"errors"
	"fmt"
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
}

// ErrAbsent is what a removal's del wraps when the server says it has no
// such thing: neither removed nor failed.
var ErrAbsent = errors.New("the server has no such thing")

// ErrUnconfirmed is what a removal's del wraps when the server timed out and
// its lookups have not yet shown the thing gone: a server with a backlog
// answers so and removes it later. RemoveEachConfirmed looks again once
// everything else is done.
var ErrUnconfirmed = errors.New("the server timed out and still has it")

// Settling: how long, and how often, the unconfirmed removals are looked up
// again once the others are done.
var (
	removeSettle      = 60 * time.Second
	removeSettleEvery = 2 * time.Second
)

// maxRemoveFailures stops a removal that keeps failing (a server gone, a
// secret refused) before it has tried every id, each failure possibly a
// request timeout.
const maxRemoveFailures = 50

// RemoveEach deletes ids with del, at most parallel at a time, and returns
// how many it deleted and how many the server did not have (del's
// ErrAbsent). Its error is one line: how many of what failed, and the
// first failure. It stops once maxRemoveFailures have failed or ctx ends.
func RemoveEach(ctx context.Context, what string, ids []string, parallel int, del func(ctx context.Context, id string) error) (removed, absent int, err error) {
	return RemoveEachConfirmed(ctx, what, ids, parallel, del, nil)
}

// RemoveEachConfirmed is RemoveEach where del may answer ErrUnconfirmed: such
// ids are not failures yet. Once every id was tried, gone looks them up again
// every removeSettleEvery for up to removeSettle (true: the server no longer
// has it); those it never finds gone count as failed, with their error.
func RemoveEachConfirmed(ctx context.Context, what string, ids []string, parallel int, del func(ctx context.Context, id string) error,
	gone func(ctx context.Context, id string) bool) (removed, absent int, err error) {
	var (
		done, absentN, failed atomic.Int64
		mu                    sync.Mutex
		first                 error
		wg                    sync.WaitGroup
		pending               = map[string]error{}
	)
	fail := func(err error) {
		if failed.Add(1) == 1 {
			mu.Lock()
			first = err
			mu.Unlock()
		}
	}
	next := make(chan string)
	for range max(parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range next {
				if failed.Load() >= maxRemoveFailures {
					continue // stopping: what is left is not tried
				}
				err := del(ctx, id)
				switch {
				case errors.Is(err, ErrAbsent):
					absentN.Add(1)
				case errors.Is(err, ErrUnconfirmed) && gone != nil:
					mu.Lock()
					pending[id] = err
					mu.Unlock()
				case err != nil:
					fail(err)
				default:
					done.Add(1)
				}
			}
		}()
	}
	for _, id := range ids {
		if ctx.Err() != nil || failed.Load() >= maxRemoveFailures {
			break
		}
		next <- id
	}
	close(next)
	wg.Wait()
	settle(ctx, pending, parallel, gone, &done)
	for _, err := range pending {
		fail(err)
	}
	n, a, f := int(done.Load()), int(absentN.Load()), int(failed.Load())
	left := len(ids) - n - a
	if left == 0 {
		return n, a, nil
	}
	msg := fmt.Sprintf("%s: %d of %d not removed", what, left, len(ids))
	switch untried := left - f; {
	case untried > 0 && f >= maxRemoveFailures:
		msg += fmt.Sprintf(", stopped after %d failures; the first: %v", maxRemoveFailures, first)
	case untried > 0:
		msg += fmt.Sprintf(" (%d not tried: %v)", untried, context.Cause(ctx))
		if f > 0 {
			msg += fmt.Sprintf("; the first failure: %v", first)
		}
	default:
		msg += fmt.Sprintf("; the first failure: %v", first)
	}
	return n, a, errors.New(msg)
}

// settle looks up the pending removals until each is gone (counted done and
// dropped from pending), removeSettle has passed or ctx ends.
func settle(ctx context.Context, pending map[string]error, parallel int, gone func(context.Context, string) bool, done *atomic.Int64) {
	deadline := time.Now().Add(removeSettle)
	for len(pending) > 0 && ctx.Err() == nil && time.Now().Before(deadline) {
		var (
			mu sync.Mutex
			g  errgroup.Group
		)
		g.SetLimit(max(parallel, 1))
		ids := make([]string, 0, len(pending))
		for id := range pending {
			ids = append(ids, id)
		}
		for _, id := range ids {
			g.Go(func() error {
				if gone(ctx, id) {
					mu.Lock()
					delete(pending, id)
					mu.Unlock()
					done.Add(1)
				}
				return nil
			})
		}
		g.Wait()
		if len(pending) == 0 {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(removeSettleEvery):
		}
	}
}
