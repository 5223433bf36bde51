package wildfire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/imbench/imbench/load/engine"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// DestroyUser is /admin/user/destroy: the server drops the user's
// sessions, messages, friends and groups and marks the user deleted. It
// answers before that work is done, and answers 0 for any user id, one it
// never had or destroyed before too: so the user is looked up first, and
// one the server does not have (253) is absent, not removed. An answer of
// 249 "timeout" (or none in time) is checked later (confirm).
func (a *Admin) DestroyUser(ctx context.Context, id string) error {
	if a.absent(ctx, wire.PathUserGetInfo, wire.GetUserInfoReq{UserID: id}) {
		return fmt.Errorf("%w: user %s", engine.ErrAbsent, id)
	}
	_, err := call[json.RawMessage](ctx, a, wire.PathUserDestroy, wire.DestroyUserReq{UserID: id})
	return a.confirm(ctx, err)
}

// DismissGroup is /admin/group/del. An admin call skips the owner check;
// operator sends the dismissal's notification. A group the server does not
// have (never created, or dismissed before) is 253: engine.ErrAbsent.
func (a *Admin) DismissGroup(ctx context.Context, id, operator string) error {
	_, err := call[json.RawMessage](ctx, a, wire.PathGroupDismiss, wire.DismissGroupReq{Operator: operator, GroupID: id})
	var ae *APIError
	if errors.As(err, &ae) && ae.Code == wire.CodeNotExist {
		return fmt.Errorf("%w: %v", engine.ErrAbsent, err)
	}
	return a.confirm(ctx, err)
}

// Tries of a write the server timed out (setup's again), and how far apart.
const confirmTries = 5

var confirmEvery = 2 * time.Second

// confirm makes a removal answered with a timeout (the server's 249, or no
// answer within the client's) unconfirmed (engine.ErrUnconfirmed): the real
// server answered 249 under a backlog and removed everything all the same,
// some of it minutes later. The clean-up looks it up again once its other
// removals are done, so that a timeout never counts as a failure, nor
// toward the clean-up's stop after repeated failures.
func (a *Admin) confirm(ctx context.Context, err error) error {
	if !timedOut(ctx, err) {
		return err
	}
	return fmt.Errorf("%w: %v", engine.ErrUnconfirmed, err)
}

// recheckPause waits confirmEvery before a timed-out call is made again;
// false when ctx ended first.
func recheckPause(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(confirmEvery):
		return true
	}
}

// timedOut reports an answer of 249 "timeout", or none within the
// client's time while ctx lasts.
func timedOut(ctx context.Context, err error) bool {
	var ae *APIError
	var ne net.Error
	return errors.As(err, &ae) && ae.Code == wire.CodeTimeout ||
		(errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()) && ctx.Err() == nil
}

// absent reports a lookup answered 253 (not exist).
func (a *Admin) absent(ctx context.Context, path string, lookup any) bool {
	var ae *APIError
	_, err := call[json.RawMessage](ctx, a, path, lookup)
	return errors.As(err, &ae) && ae.Code == wire.CodeNotExist
}

// DestroyChatroom is /admin/chatroom/del: the chatroom's members are
// cleared and it is marked ended (state 2); any id is answered 0.
func (a *Admin) DestroyChatroom(ctx context.Context, id string) error {
	_, err := call[json.RawMessage](ctx, a, wire.PathChatroomDel, wire.DestroyChatroomReq{ChatroomID: id})
	return err
}

var _ engine.Remover = (*protocol)(nil)

// Remove ends the run's chatrooms, dismisses its groups, then destroys its
// users (in that order: a dismissal names one of them as its operator).
func (p *protocol) Remove(ctx context.Context, c engine.Created) (engine.Removal, error) {
	a := newAdmin(p.cfg)
	var rm engine.Removal
	var errs []error
	var err error
	rm.Rooms, rm.RoomsAbsent, err = engine.RemoveEach(ctx, "chatrooms", c.Rooms, p.cfg.Parallel, a.DestroyChatroom)
	rm.RoomsLeft = len(c.Rooms) - rm.Rooms - rm.RoomsAbsent
	errs = append(errs, err)
	operator := c.UserID(0)
	rm.Groups, rm.GroupsAbsent, err = engine.RemoveEachConfirmed(ctx, "groups", c.Groups, p.cfg.Parallel, func(ctx context.Context, id string) error {
		return a.DismissGroup(ctx, id, operator)
	}, func(ctx context.Context, id string) bool {
		return a.absent(ctx, wire.PathGroupGetInfo, wire.GetGroupReq{GroupID: id})
	})
	rm.GroupsLeft = len(c.Groups) - rm.Groups - rm.GroupsAbsent
	errs = append(errs, err)
	rm.Users, rm.UsersAbsent, err = engine.RemoveEachConfirmed(ctx, "users", c.UserIDs(), p.cfg.Parallel, a.DestroyUser,
		func(ctx context.Context, id string) bool {
			return a.absent(ctx, wire.PathUserGetInfo, wire.GetUserInfoReq{UserID: id})
		})
	rm.UsersLeft = c.Users - rm.Users - rm.UsersAbsent
	errs = append(errs, err)
	if c.Users > 0 {
		rm.Kept = append(rm.Kept, "Wildfire keeps a destroyed user's row, marked deleted, its profile cleared")
	}
	if len(c.Rooms) > 0 {
		rm.Kept = append(rm.Kept, "Wildfire keeps a deleted chatroom's row, marked ended, without members")
	}
	return rm, errors.Join(errs...)
}
