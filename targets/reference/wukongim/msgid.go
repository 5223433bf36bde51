package wukongim

import (
	"sync/atomic"
	"time"
)

// Message ids are snowflake-like, as the real server's: milliseconds since
// an epoch, 10 node bits, 12 bits of sequence within the millisecond.
const (
	nodeBits = 10
	seqBits  = 12
	nodeMask = 1<<nodeBits - 1
)

var idEpoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

type idGen struct {
	node int64
	last atomic.Int64
}

// next returns an id above every earlier one of this generator. A burst
// of more than 4096 in a millisecond borrows from the next milliseconds.
func (g *idGen) next() int64 {
	for {
		old := g.last.Load()
		id := (time.Now().UnixMilli()-idEpoch)<<(nodeBits+seqBits) | g.node<<seqBits
		if id <= old {
			id = old + 1
		}
		if g.last.CompareAndSwap(old, id) {
			return id
		}
	}
}
