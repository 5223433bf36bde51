package wukongim

import (
	"errors"
	"net/http"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// channelDelete is /channel/delete: a person channel is refused (400), a
// channel that does not exist answered {"status":200}. The real server
// marks the channel disbanded and keeps its subscribers and messages (its
// store's clearing is empty); this one forgets the group or chatroom.
func (a *api) channelDelete(_ *http.Request, body []byte) (any, error) {
	var req wire.ChannelDeleteReq
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	var err error
	switch req.ChannelType {
	case wire.ChannelPerson:
		return nil, refuse("cannot delete a person channel")
	case wire.ChannelGroup:
		err = a.c.DismissGroup(req.ChannelID)
	case wire.ChannelLive:
		err = a.c.DeleteRoom(req.ChannelID)
	}
	if errors.Is(err, core.ErrUnknownGroup) {
		return nil, nil
	}
	return nil, err
}
