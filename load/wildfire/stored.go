package wildfire

import (
	"context"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/wildfire"
)

var _ engine.StoredReader = (*Driver)(nil)

// ReadStored implements engine.StoredReader: the user's feed pulled from
// its start (MP from 0, the server's history pull), page after page to its
// head, over a connection of its own. Run it once the run's own
// connections have ended: it moves the user's head back.
func (d *Driver) ReadStored(ctx context.Context, u uint32, _ []uint32, found func(verify.Arrival)) error {
	d.heads[wire.PullNormal][u].Store(0)
	d.held[u].Store(0)
	c, err := d.Connect(ctx, u, engine.Reader(found))
	if err != nil {
		return err
	}
	defer c.Close(func(bool) {})
	return engine.Await(ctx, func(done func(error)) error { return c.(*conn).Sync(false, done) })
}

// StoredPerUser implements engine.StoredReader: Wildfire files a copy of
// each message in every receiver's feed.
func (d *Driver) StoredPerUser() bool { return true }
