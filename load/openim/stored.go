package openim

import (
	"context"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/verify"
)

var _ engine.StoredReader = (*Driver)(nil)

// ReadStored implements engine.StoredReader: the user's newest seqs (1001)
// and its pulls by seq (1002) from the first, over a connection of its own.
// A message msgtransfer never stored took no seq: no pull brings it.
func (d *Driver) ReadStored(ctx context.Context, u uint32, convs []uint32, found func(verify.Arrival)) error {
	return engine.ReadBySeq(ctx, d, u, convs, found)
}

// StoredPerUser implements engine.StoredReader: OpenIM stores a
// conversation's messages once.
func (d *Driver) StoredPerUser() bool { return false }
