package openim

import (
	"context"
	"errors"
	"fmt"

	"github.com/imbench/imbench/load/engine"
	wire "github.com/imbench/imbench/wire/openim"
)

// codeDismissedAlready is servererrs.DismissedAlreadyError: a dismissal
// without deleteMember of a group dismissed before.
const codeDismissedAlready = 1204

// DismissGroup is /group/dismiss_group (open-im-server v3.8 internal/rpc/
// group DismissGroup) with deleteMember: the group is marked dismissed
// (status 2) and its members are deleted, with no notification. A group
// already dismissed that way has no owner left to find (1004 "group <id>
// owner not found"), one that never was is 1004 too: both are
// engine.ErrAbsent, not dismissed now.
func (a *API) DismissGroup(ctx context.Context, admin, groupID string) error {
	err := a.Call(ctx, "/group/dismiss_group", admin, map[string]any{"groupID": groupID, "deleteMember": true}, nil)
	switch Code(err) {
	case wire.CodeRecordNotFound, wire.CodeGroupNotFound, codeDismissedAlready:
		return fmt.Errorf("%w: %v", engine.ErrAbsent, err)
	}
	return err
}

var _ engine.Remover = (*protocol)(nil)

// Remove dismisses the run's groups. OpenIM v3.8 has no route that deletes
// a user: the users, their tokens and friendships stay.
func (p *protocol) Remove(ctx context.Context, c engine.Created) (engine.Removal, error) {
	var rm engine.Removal
	if c.Users > 0 {
		rm.Kept = append(rm.Kept, "OpenIM v3.8 has no route that deletes a user: the run's users, their tokens and friendships stay")
	}
	if len(c.Groups) > 0 {
		rm.Kept = append(rm.Kept, "OpenIM keeps a dismissed group's row, marked dismissed (status 2), without members")
	}
	if len(c.Groups) == 0 {
		return rm, nil
	}
	api := newAPI(p.cfg)
	admin, err := adminToken(ctx, api, p.cfg)
	if err != nil {
		rm.GroupsLeft = len(c.Groups)
		return rm, errors.New("groups: " + err.Error())
	}
	rm.Groups, rm.GroupsAbsent, err = engine.RemoveEach(ctx, "groups", c.Groups, p.cfg.Parallel, func(ctx context.Context, id string) error {
		return api.DismissGroup(ctx, admin, id)
	})
	rm.GroupsLeft = len(c.Groups) - rm.Groups - rm.GroupsAbsent
	return rm, err
}
