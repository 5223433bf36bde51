package openim

import (
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// pushFrames is what this front end keeps in a push's slot: the
// PushMessages protobuf made once, then one frame per envelope and
// compression, each made when a recipient first needs it. Every recipient
// on this process shares them, so a fan-out encodes each variant once and
// every member's connection gets the very same bytes. A notification the
// server sends with isSendMsg (notify.go) is two pushes, as open-im-server
// makes it (internal/msgtransfer online_history_msg_handler.go
// categorizeMessageLists, then handleMsg before handleNotification): the
// stored copy in the chat conversation, then the unstored notification in
// its n_ conversation with seq 0. Every frame carries the operationID of
// the request that sent the message, as msggateway's PushMessage takes it
// from the push's context (internal/msggateway client.go); an SDK runs the
// sync a push starts under that id and refuses an empty one.
type pushFrames struct {
	data     [][]byte // PushMessages, in writing order
	opID     string   // the sending request's operationID
	sendTime int64
	err      error
	variants [4]struct {
		once sync.Once
		b    [][]byte
		err  error
	}
}

// variantOf numbers the four frame variants: gob, gob+gzip, json, json+gzip.
func variantOf(env wire.Envelope, gz bool) int {
	v := 0
	if env == wire.JSON {
		v = 2
	}
	if gz {
		v++
	}
	return v
}

var variantArgs = [4]struct {
	env wire.Envelope
	gz  bool
}{{wire.Gob, false}, {wire.Gob, true}, {wire.JSON, false}, {wire.JSON, true}}

func framesOf(p *core.Push) *pushFrames {
	return p.Slot(newPushFrames).(*pushFrames)
}

func newPushFrames(m *core.Message) any {
	f := &pushFrames{}
	md, err := msgData(m)
	if err != nil {
		f.err = err
		return f
	}
	f.sendTime, f.opID = md.SendTime, m.RequestID
	conv := convID(m.Conv)
	data, err := proto.Marshal(&pb.PushMessages{Msgs: map[string]*pb.PullMsgs{conv: {Msgs: []*pb.MsgData{md}}}})
	if err != nil {
		f.err = err
		return f
	}
	f.data = append(f.data, data)
	if m.System && isNotificationType(md.ContentType) {
		n := proto.Clone(md).(*pb.MsgData)
		n.Seq, n.Options = 0, notificationOptions()
		data, err := proto.Marshal(&pb.PushMessages{NotificationMsgs: map[string]*pb.PullMsgs{notificationConv(conv): {Msgs: []*pb.MsgData{n}}}})
		f.data, f.err = append(f.data, data), err
	}
	return f
}

// frames returns variant v of the push's frames.
func (f *pushFrames) frames(v int) ([][]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	fv := &f.variants[v]
	fv.once.Do(func() {
		for _, data := range f.data {
			b, err := encodeFrame(&wire.Resp{ReqIdentifier: wire.PushMsg, OperationID: f.opID, Data: data}, variantArgs[v].env, variantArgs[v].gz)
			if err != nil {
				fv.err = err
				return
			}
			fv.b = append(fv.b, b)
		}
	})
	return fv.b, fv.err
}

// encodeFrame encodes an envelope as msggateway does: a fresh encoder per
// frame, then standard gzip over the whole of it.
func encodeFrame(r *wire.Resp, env wire.Envelope, gz bool) ([]byte, error) {
	b, err := env.EncodeResp(r)
	if err != nil || !gz {
		return b, err
	}
	return gzipped(b)
}
