package openim

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// The core's payload of an OpenIM message is its MsgData as stored: the
// fields a client gave that OpenIM keeps, and the server message id. Seq,
// status and (when the client left it 0) the send time come from the core's
// message each time the MsgData is given back.

// toPayload keeps the stored fields of a client's MsgData, with its server
// message id.
func toPayload(md *pb.MsgData, serverMsgID string) ([]byte, error) {
	return proto.Marshal(&pb.MsgData{SendID: md.SendID, RecvID: md.RecvID, GroupID: md.GroupID,
		ClientMsgID: md.ClientMsgID, ServerMsgID: serverMsgID, SenderPlatformID: md.SenderPlatformID,
		SenderNickname: md.SenderNickname, SessionType: md.SessionType, MsgFrom: md.MsgFrom,
		ContentType: md.ContentType, Content: md.Content, SendTime: md.SendTime, CreateTime: md.CreateTime,
		Ex: md.Ex})
}

// msgData is a stored message as OpenIM gives it back in pushes and pulls.
func msgData(m *core.Message) (*pb.MsgData, error) {
	md := new(pb.MsgData)
	if err := proto.Unmarshal(m.Payload, md); err != nil {
		return nil, err
	}
	md.Seq, md.Status = m.Seq, wire.MsgStatusSendSuccess
	md.SendTime = sendTime(md, m)
	return md, nil
}

// sendTime is the client's send time, or the server's when it sent 0.
func sendTime(md *pb.MsgData, m *core.Message) int64 {
	if md.SendTime != 0 {
		return md.SendTime
	}
	return m.Time
}

// serverMsgID is made as OpenIM's msg service makes it.
func serverMsgID(sendID string, now time.Time) string {
	sum := md5.Sum([]byte(now.Format("2006-01-02 15:04:05") + "-" + sendID + "-" + strconv.FormatInt(now.UnixNano(), 10)))
	return hex.EncodeToString(sum[:])
}

// convOf is the conversation a client's MsgData is sent to.
func convOf(md *pb.MsgData) (core.ConvKey, error) {
	switch md.SessionType {
	case wire.SessionSingle:
		return core.DirectKey(md.SendID, md.RecvID), nil
	case wire.SessionGroup:
		return core.GroupKey(md.GroupID), nil
	}
	return core.ConvKey{}, refuse(wire.CodeArgs, "unknown sessionType %d", md.SessionType)
}
