package openim

import (
	"sort"
	"sync"

	"google.golang.org/protobuf/proto"

	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// Pull implements engine.Conn: PullMsgByRange (1002) over contiguous runs
// of at most maxSeqsPerRange seqs. A request carries one range per
// conversation, as the SDK's do: the real server keeps only the last range
// of a conversation (sync_msg.go assigns its map entry per range), so a
// conversation's further runs go in further requests, sent at once.
func (c *conn) Pull(seqs map[uint32][]uint64, recover bool, done func(error)) error {
	var rounds [][]*pb.SeqRange
	for cv, list := range seqs {
		sort.Slice(list, func(i, j int) bool { return list[i] < list[j] })
		r := 0
		for i := 0; i < len(list); r++ {
			j := i
			for j+1 < len(list) && list[j+1] == list[j]+1 && j+1-i < maxSeqsPerRange {
				j++
			}
			if r == len(rounds) {
				rounds = append(rounds, nil)
			}
			rounds[r] = append(rounds[r], &pb.SeqRange{ConversationID: c.d.conv[cv],
				Begin: int64(list[i]), End: int64(list[j]), Num: int64(j - i + 1)})
			i = j + 1
		}
	}
	if len(rounds) == 0 {
		done(nil)
		return nil
	}
	var (
		mu    sync.Mutex
		left  = len(rounds)
		first error
	)
	for _, ranges := range rounds {
		err := c.pullRanges(ranges, recover, func(err error) {
			mu.Lock()
			left--
			if first == nil {
				first = err
			}
			last := left == 0
			err = first
			mu.Unlock()
			if last {
				done(err)
			}
		})
		if err != nil {
			return err // the requests already out answer into nothing
		}
	}
	return nil
}

// pullRanges sends one 1002; its messages arrive before done is called.
func (c *conn) pullRanges(ranges []*pb.SeqRange, recover bool, done func(error)) error {
	data, err := proto.Marshal(&pb.PullMessageBySeqsReq{UserID: c.uid, SeqRanges: ranges, Order: pb.PullOrder_PullOrderAsc})
	if err != nil {
		return err
	}
	return c.request(wire.ReqPullMsgByRange, data, func(r *wire.Resp, err error) {
		if err == nil {
			err = respError(r)
		}
		if err == nil {
			var resp pb.PullMessageBySeqsResp
			if err = proto.Unmarshal(r.Data, &resp); err == nil {
				arrivals := c.arrivals(resp.Msgs, true, recover)
				c.local.held(c.d, arrivals)
				for _, a := range arrivals {
					c.h.Arrive(a)
				}
			}
		}
		done(err)
	})
}

// MaxSeqs implements engine.Conn: GetNewestSeq (1001). Right after an
// SDK-faithful login it answers with the login's own 1001 (the SDK sends
// one), without asking again.
func (c *conn) MaxSeqs(done func(map[uint32]uint64, error)) error {
	if m := c.maxes.Swap(nil); m != nil {
		done(*m, nil)
		return nil
	}
	data, err := proto.Marshal(&pb.GetMaxSeqReq{UserID: c.uid})
	if err != nil {
		return err
	}
	return c.request(wire.ReqGetNewestSeq, data, func(r *wire.Resp, err error) {
		if err == nil {
			err = respError(r)
		}
		if err != nil {
			done(nil, err)
			return
		}
		var resp pb.GetMaxSeqResp
		if err := proto.Unmarshal(r.Data, &resp); err != nil {
			done(nil, err)
			return
		}
		done(c.planSeqs(resp.MaxSeqs), nil)
	})
}

// planSeqs keeps the plan's conversations of a max-seq answer.
func (c *conn) planSeqs(maxSeqs map[string]int64) map[uint32]uint64 {
	out := make(map[uint32]uint64, len(maxSeqs))
	for id, s := range maxSeqs {
		if cv, ok := c.d.byID[id]; ok && s > 0 {
			out[cv] = uint64(s)
		}
	}
	return out
}
