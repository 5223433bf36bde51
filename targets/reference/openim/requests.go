package openim

import (
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// handle serves one request frame; false ends the connection. The
// gateway's own order (open-im-server internal/msggateway client.go
// handleMessage): decode (an undecodable frame ends the connection),
// validate the envelope and the sender, then answer by identifier with
// reqIdentifier, msgIncr and operationID echoed and errCode/errMsg from
// the error (apiresp.ParseError: a coded error keeps its code, any other is
// 500). What the real gateway refuses by ending the connection (an invalid
// envelope, another user's sendID, an identifier it does not serve) is
// answered here with 500 first, then the connection ends as there.
func (c *conn) handle(data []byte) bool {
	if c.gzip {
		var err error
		if data, err = gunzipped(data); err != nil {
			return false
		}
	}
	var req wire.Req
	if err := c.env.DecodeReq(data, &req); err != nil {
		return false
	}
	resp := &wire.Resp{ReqIdentifier: req.ReqIdentifier, MsgIncr: req.MsgIncr, OperationID: req.OperationID}
	switch {
	case req.ReqIdentifier == 0 || req.SendID == "" || req.OperationID == "" || req.MsgIncr == "":
		return c.refuseAndEnd(resp, "reqIdentifier, sendID, operationID and msgIncr are required")
	case req.SendID != c.sess.User:
		return c.refuseAndEnd(resp, "exception conn userID not same to req userID")
	}
	var (
		out  proto.Message
		err  error
		late time.Duration // the ack-late fault's, for a send
	)
	switch req.ReqIdentifier {
	case wire.ReqGetNewestSeq:
		out, err = c.newestSeq(req.Data)
	case wire.ReqPullMsgByRange:
		out, err = c.pullByRange(req.Data)
	case wire.ReqSendMsg:
		out, late, err = c.sendMsg(req.Data, req.OperationID)
	case wire.ReqSendSignalMsg:
		// The gateway hands the msg service no MsgData at all
		// (message_handler.go SendSignalMessage): refused as such.
		err = refuse(wire.CodeArgs, "msgData is nil")
	case wire.ReqPullMsgBySeqList:
		out, err = c.pullBySeqList(req.Data)
	case wire.ReqGetConvMaxReadSeq:
		out, err = c.convMaxReadSeq(req.Data)
	case wire.ReqPullConvLastMsg:
		out, err = c.lastMessage(req.Data)
	case wire.LogoutMsg:
		out, err = c.logout(req.Data)
	case wire.SetBackgroundStatus:
		out, err = c.setBackground(req.Data)
	case wire.SubUserOnlineStatus:
		out, err = c.subscribe(req.Data)
	default: // 2001, 2002, 3001 and anything unknown
		return c.refuseAndEnd(resp, "ReqIdentifier failed")
	}
	if err == nil && c.stalled(out) {
		return true // never answered (the stall-pulls fault)
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
	if late > 0 { // only the answer waits: the connection's reads go on
		time.AfterFunc(late, func() { c.enqueue(frame{data: b, at: time.Now()}) })
		return true
	}
	// After a logout's answer the gateway ends the connection
	// (client.go replyMessage), whatever the answer was.
	return c.enqueue(frame{data: b, final: req.ReqIdentifier == wire.LogoutMsg, at: time.Now()})
}

// stalled reports whether the answer to a pull goes unwritten: the core's
// stall-pulls fault, where the gateway runs beside the core.
func (c *conn) stalled(out proto.Message) bool {
	var found int
	switch r := out.(type) {
	case *pb.PullMessageBySeqsResp:
		found = pulled(r.Msgs)
	case *pb.GetSeqMessageResp:
		found = pulled(r.Msgs)
	default:
		return false
	}
	s, ok := c.g.Core.(interface{ StallPull(int) bool })
	return ok && s.StallPull(found)
}

// pulled counts the users' messages among those pulled: the server's own
// notifications (content types from 1000, such as a friendship's, filed
// in the conversation at setup) are no history a client sent.
func pulled(convs map[string]*pb.PullMsgs) (n int) {
	for _, m := range convs {
		for _, md := range m.GetMsgs() {
			if md.GetContentType() < 1000 {
				n++
			}
		}
	}
	return n
}

// refuseAndEnd answers a request the real gateway would end the connection
// over with 500, then ends it once the answer is written.
func (c *conn) refuseAndEnd(resp *wire.Resp, why string) bool {
	c.g.Log.Debug("request refused, ending the connection", "user", c.sess.User, "reqIdentifier", resp.ReqIdentifier, "why", why)
	r := refuse(wire.CodeServerInternal, "%s", why)
	resp.ErrCode, resp.ErrMsg = r.Code, r.Msg
	if b, err := c.encode(resp); err == nil {
		c.enqueue(frame{data: b, final: true, at: time.Now()})
	}
	return true // the writer ends the connection after the answer
}

// unmarshal decodes a request's protobuf; failure is a 500, as an
// uncoded error is for the gateway.
func unmarshal(data []byte, m proto.Message) error {
	if err := proto.Unmarshal(data, m); err != nil {
		return refuse(wire.CodeServerInternal, "proto unmarshal: %s", err)
	}
	return nil
}

// self checks that a request's userID is the connection's (authverify
// CheckAccessV3 for a user caller).
func (c *conn) self(userID string) error {
	if userID != c.sess.User {
		return refuse(wire.CodeNoPermission, "userID %q is not the connection's", userID)
	}
	return nil
}

// sendMsg is 1003; the message's pushes carry the request's operationID.
func (c *conn) sendMsg(data []byte, opID string) (proto.Message, time.Duration, error) {
	var md pb.MsgData
	if err := unmarshal(data, &md); err != nil {
		return nil, 0, err
	}
	if md.SendID == "" || md.Content == nil {
		return nil, 0, refuse(wire.CodeArgs, "sendID and content are required")
	}
	key, err := convOf(&md)
	if err != nil {
		return nil, 0, err
	}
	id := serverMsgID(md.SendID, time.Now())
	payload, err := toPayload(&md, id)
	if err != nil {
		return nil, 0, err
	}
	m, err := c.g.Core.Send(&core.Message{Conv: key, Sender: md.SendID, ClientID: md.ClientMsgID, Payload: payload, RequestID: opID})
	if err != nil {
		return nil, 0, err
	}
	c.g.reads.sent(md.SendID, convID(key), m.Seq)
	return &pb.SendMsgResp{ServerMsgID: id, ClientMsgID: md.ClientMsgID, SendTime: sendTime(&md, m)}, m.AckLate, nil
}

func (c *conn) newestSeq(data []byte) (proto.Message, error) {
	var r pb.GetMaxSeqReq
	if err := unmarshal(data, &r); err != nil {
		return nil, err
	}
	if err := c.self(r.UserID); err != nil {
		return nil, err
	}
	return newestSeqs(c.g.Core, r.UserID), nil
}

func (c *conn) pullByRange(data []byte) (proto.Message, error) {
	var r pb.PullMessageBySeqsReq
	if err := unmarshal(data, &r); err != nil {
		return nil, err
	}
	if err := c.self(r.UserID); err != nil {
		return nil, err
	}
	return pullRanges(c.g.Core, &r)
}

func (c *conn) pullBySeqList(data []byte) (proto.Message, error) {
	var r pb.GetSeqMessageReq
	if err := unmarshal(data, &r); err != nil {
		return nil, err
	}
	if err := c.self(r.UserID); err != nil {
		return nil, err
	}
	return pullSeqs(c.g.Core, &r)
}

func (c *conn) convMaxReadSeq(data []byte) (proto.Message, error) {
	var r pb.GetConversationsHasReadAndMaxSeqReq
	if err := unmarshal(data, &r); err != nil {
		return nil, err
	}
	if err := c.self(r.UserID); err != nil {
		return nil, err
	}
	return hasReadAndMaxSeqs(c.g.Core, c.g.reads, &r), nil
}

func (c *conn) lastMessage(data []byte) (proto.Message, error) {
	var r pb.GetLastMessageReq
	if err := unmarshal(data, &r); err != nil {
		return nil, err
	}
	if err := c.self(r.UserID); err != nil {
		return nil, err
	}
	return lastMessages(c.g.Core, &r)
}

// logout is 2003: the push service forgets the device's push token and
// answers an empty DelUserPushTokenResp; the connection then ends.
func (c *conn) logout(data []byte) (proto.Message, error) {
	var r pb.DelUserPushTokenReq
	if err := unmarshal(data, &r); err != nil {
		return nil, err
	}
	return &pb.DelUserPushTokenResp{}, nil
}

// setBackground is 2004: the connection's app went to the background or
// came back; a backgrounded iOS connection gets no online push
// (hub_server.go pushToUser). The answer carries no data.
func (c *conn) setBackground(data []byte) (proto.Message, error) {
	var r pb.SetAppBackgroundStatusReq
	if err := unmarshal(data, &r); err != nil {
		return nil, err
	}
	c.background.Store(r.IsBackground)
	return nil, nil
}

// subscribe is 2005: the connection (un)subscribes users' online status;
// the answer lists the platforms each newly subscribed user is online on
// (subscription.go SubUserOnlineStatus). The server's later unsolicited
// 2005 frames on status changes are not sent here.
func (c *conn) subscribe(data []byte) (proto.Message, error) {
	var r pb.SubUserOnlineStatus
	if err := unmarshal(data, &r); err != nil {
		return nil, err
	}
	tips := &pb.SubUserOnlineStatusTips{}
	for _, u := range r.SubscribeUserID {
		e := &pb.SubUserOnlineStatusElem{UserID: u}
		for _, d := range c.g.onlineDevices(u) {
			e.OnlinePlatformIDs = append(e.OnlinePlatformIDs, int32(d))
		}
		tips.Subscribers = append(tips.Subscribers, e)
	}
	return tips, nil
}
