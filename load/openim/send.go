package openim

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/load/plan"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// Send implements engine.Conn.
func (c *conn) Send(m plan.Msg, text []byte, createMs int64, done func(error)) error {
	d := c.d
	cv := d.plan.Convs[m.Conv]
	md := &pb.MsgData{
		SendID:           c.uid,
		ClientMsgID:      c.clientMsgID(m),
		SenderPlatformID: int32(d.cfg.Platform),
		MsgFrom:          wire.MsgFromUser,
		ContentType:      wire.ContentTypeText,
		Content:          wire.TextContent(text),
		CreateTime:       createMs,
	}
	if cv.Kind == plan.Group {
		md.SessionType, md.GroupID = wire.SessionGroup, d.plan.GroupID(cv.Group)
	} else {
		peer := cv.Peers[0]
		if peer == m.Sender {
			peer = cv.Peers[1]
		}
		md.SessionType, md.RecvID = wire.SessionSingle, d.users[peer]
	}
	data, err := proto.Marshal(md)
	if err != nil {
		return err
	}
	return c.request(wire.ReqSendMsg, data, func(r *wire.Resp, err error) {
		if err == nil {
			err = respError(r)
		}
		done(err)
	})
}

// clientMsgID is the id of message m: in the SDK-faithful login a random
// one as the SDK makes them; otherwise one derived from the message, unique
// per message and of the SDK's form (32 hex digits).
func (c *conn) clientMsgID(m plan.Msg) string {
	if c.local != nil {
		return sdkMsgID(c.uid)
	}
	return ClientMsgID(c.d.conv[m.Conv], c.uid, m.N)
}

// ClientMsgID is unique per message, an md5 hex like the SDK's.
func ClientMsgID(conv, uid string, n uint32) string {
	sum := md5.Sum([]byte(conv + "|" + uid + "|" + strconv.FormatUint(uint64(n), 10)))
	return hex.EncodeToString(sum[:])
}
