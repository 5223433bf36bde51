package openim

import (
	"bytes"
	"compress/gzip"
	"io"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// handle serves one request; false closes the connection, which is what the
// gateway does on any decode error, foreign sendID or unknown request.
func (c *conn) handle(data []byte) bool {
	if c.gzip {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return false
		}
		if data, err = io.ReadAll(zr); err != nil {
			return false
		}
	}
	var req wire.Req
	if err := c.env.DecodeReq(data, &req); err != nil || req.SendID != c.sess.User {
		return false
	}
	resp := &wire.Resp{ReqIdentifier: req.ReqIdentifier, MsgIncr: req.MsgIncr, OperationID: req.OperationID}
	var (
		out proto.Message
		err error
	)
	switch req.ReqIdentifier {
	case wire.ReqSendMsg:
		out, err = c.sendMsg(req.Data)
	case wire.ReqGetNewestSeq:
		out, err = c.newestSeq(req.Data)
	case wire.ReqPullMsgByRange:
		out, err = c.pullByRange(req.Data)
	case wire.LogoutMsg:
		if b, err := c.encode(resp); err == nil {
			c.enqueue(frame{data: b, final: true, at: time.Now()})
		}
		return true // the writer closes once the reply is out
	default:
		return false
	}
	if err != nil {
		r := refusalOf(err)
		resp.ErrCode, resp.ErrMsg = r.Code, r.Msg
	} else if out != nil {
		b, err := proto.Marshal(out)
		if err != nil {
			return false
		}
		resp.Data = b
	}
	b, err := c.encode(resp)
	if err != nil {
		return false
	}
	return c.enqueue(frame{data: b, at: time.Now()})
}

func (c *conn) sendMsg(data []byte) (proto.Message, error) {
	var md pb.MsgData
	if proto.Unmarshal(data, &md) != nil {
		return nil, refuse(wire.CodeServerInternal, "bad MsgData")
	}
	if md.SendID == "" || md.Content == nil {
		return nil, refuse(wire.CodeArgs, "sendID and content are required")
	}
	key, err := convOf(&md)
	if err != nil {
		return nil, err
	}
	id := serverMsgID(md.SendID, time.Now())
	payload, err := toPayload(&md, id)
	if err != nil {
		return nil, err
	}
	m, err := c.g.Core.Send(&core.Message{Conv: key, Sender: md.SendID, ClientID: md.ClientMsgID, Payload: payload})
	if err != nil {
		return nil, err
	}
	return &pb.SendMsgResp{ServerMsgID: id, ClientMsgID: md.ClientMsgID, SendTime: sendTime(&md, m)}, nil
}

func (c *conn) newestSeq(data []byte) (proto.Message, error) {
	var r pb.GetMaxSeqReq
	if proto.Unmarshal(data, &r) != nil || r.UserID != c.sess.User {
		return nil, refuse(wire.CodeNoPermission, "userID is not the connection's")
	}
	seqs := c.g.Core.MaxSeqs(r.UserID)
	maxes := make(map[string]int64, len(seqs))
	mins := make(map[string]int64, len(seqs))
	for k, s := range seqs {
		id := convID(k)
		maxes[id], mins[id] = s, 1
	}
	return &pb.GetMaxSeqResp{MaxSeqs: maxes, MinSeqs: mins}, nil
}

func (c *conn) pullByRange(data []byte) (proto.Message, error) {
	var r pb.PullMessageBySeqsReq
	if proto.Unmarshal(data, &r) != nil || r.UserID != c.sess.User {
		return nil, refuse(wire.CodeNoPermission, "userID is not the connection's")
	}
	res := &pb.PullMessageBySeqsResp{Msgs: map[string]*pb.PullMsgs{}}
	for _, sr := range r.SeqRanges {
		pm := res.Msgs[sr.ConversationID]
		if pm == nil {
			pm = &pb.PullMsgs{}
			res.Msgs[sr.ConversationID] = pm
		}
		// A conversation the user is not in, or an id that names none,
		// pulls nothing: an empty, ended range.
		page := core.Page{AtEnd: true}
		if key, ok := convKey(sr.ConversationID, r.UserID); ok {
			page, _ = c.g.Core.Pull(r.UserID, key, sr.Begin, sr.End, sr.Num)
		}
		for _, m := range page.Msgs {
			md, err := msgData(m)
			if err != nil {
				return nil, err
			}
			pm.Msgs = append(pm.Msgs, md)
		}
		pm.IsEnd, pm.EndSeq = page.AtEnd, page.EndSeq
	}
	return res, nil
}
