package wukongim

import (
	"context"
	"sort"

	wire "github.com/imbench/imbench/wire/wukongim"
)

// maxPull is the most /channel/messagesync returns at once.
const maxPull = 10000

// Pull implements engine.Conn: /channel/messagesync upwards over each
// contiguous run of seqs, as a client catching up does.
func (c *conn) Pull(seqs map[uint32][]uint64, recover bool, done func(error)) error {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 4*c.d.cfg.Timeout)
		defer cancel()
		for cv, list := range seqs {
			sort.Slice(list, func(i, j int) bool { return list[i] < list[j] })
			for i := 0; i < len(list); {
				j := i
				for j+1 < len(list) && list[j+1] == list[j]+1 && j+1-i < maxPull {
					j++
				}
				if err := c.pull(ctx, cv, list[i], list[j], recover); err != nil {
					done(err)
					return
				}
				i = j + 1
			}
		}
		done(nil)
	}()
	return nil
}

// pull fetches seqs lo..hi of conversation cv.
func (c *conn) pull(ctx context.Context, cv uint32, lo, hi uint64, recover bool) error {
	id, typ := c.d.channel(cv, c.user)
	resp, err := c.d.api.Sync(ctx, wire.ChannelMessageSyncReq{LoginUID: c.uid, ChannelID: id, ChannelType: typ,
		StartMessageSeq: lo, EndMessageSeq: hi + 1, Limit: int(hi - lo + 1), PullMode: wire.PullUp})
	if err != nil {
		return err
	}
	for _, m := range resp.Messages {
		if m.MessageSeq < lo || m.MessageSeq > hi {
			continue
		}
		a, ok := c.d.arrival(c.user, id, typ, m.FromUID, uint32(m.MessageSeq), m.Payload)
		if !ok {
			continue
		}
		a.Conv, a.Pulled, a.GapFill = cv, true, recover
		c.h.Arrive(a)
	}
	return nil
}

// MaxSeqs implements engine.Conn: the newest message of each of the user's
// conversations (messagesync's "last message" form).
func (c *conn) MaxSeqs(done func(map[uint32]uint64, error)) error {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 4*c.d.cfg.Timeout)
		defer cancel()
		out := map[uint32]uint64{}
		for _, cv := range c.d.conversations(c.user) {
			id, typ := c.d.channel(cv, c.user)
			resp, err := c.d.api.Sync(ctx, wire.ChannelMessageSyncReq{LoginUID: c.uid, ChannelID: id, ChannelType: typ,
				Limit: 1, PullMode: wire.PullDown})
			if err != nil {
				done(nil, err)
				return
			}
			for _, m := range resp.Messages {
				if m.MessageSeq > out[cv] {
					out[cv] = m.MessageSeq
				}
			}
		}
		done(out, nil)
	}()
	return nil
}
