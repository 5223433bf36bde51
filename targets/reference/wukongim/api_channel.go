package wukongim

import (
	"errors"
	"net/http"
	"strings"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// userToken stores a user's token for a device flag (and level), creating
// the user when absent. The real server also kicks the master device's
// connections here; this one, whose API may be in another process than the
// connections, does not.
func (a *api) userToken(_ *http.Request, body []byte) (any, error) {
	var req wire.UserTokenReq
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	switch {
	case strings.TrimSpace(req.UID) == "":
		return nil, refuse("uid不能为空！")
	case req.Token == "":
		return nil, refuse("token不能为空！")
	case !validID(req.UID):
		return nil, refuse("uid不能包含特殊字符！")
	}
	level, other := wire.DeviceLevelSlave, wire.DeviceLevelMaster
	if req.DeviceLevel == wire.DeviceLevelMaster {
		level, other = other, level
	}
	if err := a.c.SetToken(req.UID, tokenDevice(req.DeviceFlag, level), req.Token); err != nil {
		return nil, err
	}
	return nil, a.c.SetToken(req.UID, tokenDevice(req.DeviceFlag, other), "")
}

// channel creates or updates a group channel with subscribers; the first
// subscriber of a new one is the core's group owner. A group channel with
// no subscribers yet exists for the core only once it has some. A live
// channel (type 9) is the core's chatroom, created even without any.
func (a *api) channel(_ *http.Request, body []byte) (any, error) {
	var req wire.ChannelCreateReq
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	if err := checkChannel(req.ChannelID, req.ChannelType, "create"); err != nil {
		return nil, err
	}
	if req.ChannelType == wire.ChannelLive {
		return nil, a.joinRoom(req.ChannelID, uniqueIDs(req.Subscribers), req.Reset == 1)
	}
	return nil, a.setSubscribers(req.ChannelID, req.Subscribers, req.Reset == 1)
}

func (a *api) subscriberAdd(_ *http.Request, body []byte) (any, error) {
	var req wire.SubscriberAddReq
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	if req.ChannelType == 0 {
		req.ChannelType = wire.ChannelGroup
	}
	if err := checkChannel(req.ChannelID, req.ChannelType, "add subscribers to"); err != nil {
		return nil, err
	}
	if req.TempSubscriber == 1 {
		return nil, refuse("temporary subscribers are not supported")
	}
	if req.ChannelType == wire.ChannelLive {
		ids := uniqueIDs(req.Subscribers)
		if len(ids) == 0 {
			return nil, refuse("subscribers is empty")
		}
		return nil, a.joinRoom(req.ChannelID, ids, req.Reset == 1)
	}
	return nil, a.setSubscribers(req.ChannelID, req.Subscribers, req.Reset == 1)
}

func (a *api) subscriberRemove(_ *http.Request, body []byte) (any, error) {
	var req wire.SubscriberRemoveReq
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	if req.ChannelType == 0 {
		req.ChannelType = wire.ChannelGroup
	}
	if err := checkChannel(req.ChannelID, req.ChannelType, "remove subscribers from"); err != nil {
		return nil, err
	}
	var err error
	if req.ChannelType == wire.ChannelLive {
		ids := uniqueIDs(req.Subscribers)
		if len(ids) == 0 {
			return nil, refuse("subscribers is empty")
		}
		err = a.c.LeaveRoom(req.ChannelID, ids...)
	} else {
		err = a.c.RemoveMembers(req.ChannelID, req.Subscribers)
	}
	return nil, ignoreUnknownGroup(err)
}

func checkChannel(id string, typ uint8, what string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return refuse("频道ID不能为空！")
	case !validID(id):
		return refuse("频道ID不能包含特殊字符！")
	case typ == wire.ChannelPerson:
		return refuse("cannot %s a person channel", what)
	case typ != wire.ChannelGroup && typ != wire.ChannelLive:
		return refuse("channel_type %d: the reference target keeps group (2) and live (9) channels only", typ)
	}
	return nil
}

// joinRoom makes the users in ids (unique) subscribers of live channel id,
// the core's chatroom, creating the users and the room as needed; reset
// has the subscribers it had leave first. Joining is all it takes: a live
// channel keeps no conversation to add the member to, and what was sent
// before the join is not given to the member.
func (a *api) joinRoom(id string, ids []string, reset bool) error {
	if err := a.ensureUsers(ids); err != nil {
		return err
	}
	if reset {
		if old, err := a.c.RoomMembers(id); err == nil {
			a.c.LeaveRoom(id, old...)
		}
	}
	return a.c.JoinRoom(id, ids...)
}

// setSubscribers makes the users in ids members of group id, creating the
// users and the group as needed; reset drops the members it had first.
func (a *api) setSubscribers(id string, ids []string, reset bool) error {
	ids = uniqueIDs(ids)
	if err := a.ensureUsers(ids); err != nil {
		return err
	}
	if reset {
		if old, err := a.c.Members(id); err == nil {
			a.c.RemoveMembers(id, old)
		}
	}
	for {
		err := a.c.AddMembers(id, ids)
		if !errors.Is(err, core.ErrUnknownGroup) || len(ids) == 0 {
			return ignoreUnknownGroup(err)
		}
		if _, err = a.c.CreateGroup(id, ids[0], ids[1:]); !errors.Is(err, core.ErrExists) {
			return err
		}
		// Created meanwhile by another call: add to it.
	}
}

func ignoreUnknownGroup(err error) error {
	if errors.Is(err, core.ErrUnknownGroup) {
		return nil
	}
	return err
}

// ensureUsers registers the users not yet known: the real server keeps
// subscribers whether or not they ever got a token.
func (a *api) ensureUsers(ids []string) error {
	for range 8 {
		known := a.c.Registered(ids)
		var missing []string
		for _, id := range ids {
			if !known[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 {
			return nil
		}
		if err := a.c.Register(missing); !errors.Is(err, core.ErrExists) {
			return err
		}
		// Another call registered some of them: look again.
	}
	return refuse("users being registered concurrently, try again")
}

func uniqueIDs(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if strings.TrimSpace(id) != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
