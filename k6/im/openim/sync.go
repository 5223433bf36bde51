package openim

import (
	"sort"

	"google.golang.org/protobuf/proto"

	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// Pull implements engine.Conn: PullMsgByRange (1002) over contiguous runs.
func (c *conn) Pull(seqs map[uint32][]uint64, recover bool, done func(error)) error {
	req := &pb.PullMessageBySeqsReq{UserID: c.uid, Order: pb.PullOrder_PullOrderAsc}
	for cv, list := range seqs {
		sort.Slice(list, func(i, j int) bool { return list[i] < list[j] })
		for i := 0; i < len(list); {
			j := i
			for j+1 < len(list) && list[j+1] == list[j]+1 && j+1-i < maxSeqsPerRange {
				j++
			}
			req.SeqRanges = append(req.SeqRanges, &pb.SeqRange{ConversationID: c.d.conv[cv],
				Begin: int64(list[i]), End: int64(list[j]), Num: int64(j - i + 1)})
			i = j + 1
		}
	}
	if len(req.SeqRanges) == 0 {
		done(nil)
		return nil
	}
	data, err := proto.Marshal(req)
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
				for _, a := range c.arrivals(resp.Msgs, true, recover) {
					c.h.Arrive(a)
				}
			}
		}
		done(err)
	})
}

// MaxSeqs implements engine.Conn: GetNewestSeq (1001).
func (c *conn) MaxSeqs(done func(map[uint32]uint64, error)) error {
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
		out := make(map[uint32]uint64, len(resp.MaxSeqs))
		for id, s := range resp.MaxSeqs {
			if cv, ok := c.d.byID[id]; ok && s > 0 {
				out[cv] = uint64(s)
			}
		}
		done(out, nil)
	})
}
