package wukongim

import (
	"context"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/verify"
)

var _ engine.StoredReader = (*Driver)(nil)

// ReadStored implements engine.StoredReader: /channel/messagesync as the
// user, from the channel's first message to its newest.
func (d *Driver) ReadStored(ctx context.Context, u uint32, convs []uint32, found func(verify.Arrival)) error {
	return engine.ReadBySeq(ctx, d, u, convs, found)
}

// StoredPerUser implements engine.StoredReader: WuKongIM stores a
// channel's messages once.
func (d *Driver) StoredPerUser() bool { return false }
