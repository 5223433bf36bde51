package openim

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// adminContentTypes are the content types /msg/send_msg takes (open-im-server
// internal/api msg.go getSendMsgReq) that this server can carry: text,
// picture, voice, video, file, @text, custom. The content is kept as the
// JSON it was given, a text's as {"content": …}.
var adminContentTypes = map[int32]bool{101: true, 102: true, 103: true, 104: true, 105: true, 106: true, 110: true}

// sendMsg is /msg/send_msg: the admin sends a message as sendID. The
// server makes its client message id, marks it msgFrom 200 and sends it
// with no membership check, as an app manager's message is sent.
func (a *API) sendMsg(r *http.Request, _ caller, body []byte) (any, error) {
	var req wire.AdminSendMsgReq
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	if !adminContentTypes[req.ContentType] {
		return nil, refuse(wire.CodeArgs, "not support err contentType")
	}
	var content []byte
	if req.ContentType == wire.ContentTypeText {
		text, _ := req.Content["content"].(string)
		if text == "" {
			return nil, refuse(wire.CodeArgs, "text content is required")
		}
		content, _ = json.Marshal(map[string]string{"content": text})
	} else {
		var err error
		if content, err = json.Marshal(req.Content); err != nil {
			return nil, refuse(wire.CodeArgs, "%s", err)
		}
	}
	md := &pb.MsgData{SendID: req.SendID, RecvID: req.RecvID, GroupID: req.GroupID, SenderPlatformID: req.SenderPlatformID,
		SenderNickname: req.SenderNickname, SenderFaceURL: req.SenderFaceURL, SessionType: req.SessionType,
		MsgFrom: wire.MsgFromSystem, ContentType: req.ContentType, Content: content, SendTime: req.SendTime,
		CreateTime: time.Now().UnixMilli(), ClientMsgID: msgIDByMD5(req.SendID), Ex: req.Ex}
	if md.SendID == "" {
		return nil, refuse(wire.CodeArgs, "sendID is required")
	}
	key, err := convOf(md)
	if err != nil {
		return nil, err
	}
	id := serverMsgID(md.SendID, time.Now())
	payload, err := toPayload(md, id)
	if err != nil {
		return nil, err
	}
	m, err := a.Core.Send(&core.Message{Conv: key, Sender: md.SendID, ClientID: md.ClientMsgID, Payload: payload, System: true,
		RequestID: r.Header.Get("operationID")})
	if err != nil {
		return nil, err
	}
	a.reads.sent(md.SendID, convID(key), m.Seq)
	return wire.SendMsgResult{ServerMsgID: id, ClientMsgID: md.ClientMsgID, SendTime: sendTime(md, m)}, nil
}
