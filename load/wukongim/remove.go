package wukongim

import (
	"context"
	"errors"

	"github.com/imbench/imbench/load/engine"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// DeleteChannel disbands a group or live channel.
func (a *API) DeleteChannel(ctx context.Context, id string, channelType uint8) error {
	return a.call(ctx, wire.PathChannelDelete, wire.ChannelDeleteReq{ChannelID: id, ChannelType: channelType}, nil)
}

var _ engine.Remover = (*protocol)(nil)

// Remove deletes the run's group channels and live channels (its
// chatrooms). WuKongIM v2 has no route that deletes a user or a token.
func (p *protocol) Remove(ctx context.Context, c engine.Created) (engine.Removal, error) {
	api := newAPI(p.cfg)
	var rm engine.Removal
	deleteAs := func(typ uint8) func(context.Context, string) error {
		return func(ctx context.Context, id string) error { return api.DeleteChannel(ctx, id, typ) }
	}
	var errRooms, errGroups error
	rm.Rooms, rm.RoomsAbsent, errRooms = engine.RemoveEach(ctx, "live channels", c.Rooms, p.cfg.Parallel, deleteAs(wire.ChannelLive))
	rm.Groups, rm.GroupsAbsent, errGroups = engine.RemoveEach(ctx, "group channels", c.Groups, p.cfg.Parallel, deleteAs(wire.ChannelGroup))
	rm.RoomsLeft, rm.GroupsLeft = len(c.Rooms)-rm.Rooms-rm.RoomsAbsent, len(c.Groups)-rm.Groups-rm.GroupsAbsent
	if c.Users > 0 {
		rm.Kept = append(rm.Kept, "WuKongIM v2 has no API that deletes a user or a token: the run's users stay")
	}
	if len(c.Groups)+len(c.Rooms) > 0 {
		rm.Kept = append(rm.Kept, "WuKongIM's /channel/delete only marks a channel disbanded: its subscribers and messages stay")
	}
	return rm, errors.Join(errRooms, errGroups)
}
