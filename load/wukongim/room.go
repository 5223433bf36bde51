package wukongim

import (
	"context"
)

// Join implements engine.RoomConn: the user becomes a subscriber of the
// chatroom's live channel over the API (v2 has no join packet; its SUB is
// ignored), and RECVs of the room follow from then on.
func (c *conn) Join(conv uint32, done func(error)) error {
	id, typ := c.d.channel(conv, c.user)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*c.d.cfg.Timeout)
		defer cancel()
		done(c.d.api.AddSubscribers(ctx, id, typ, []string{c.uid}))
	}()
	return nil
}
