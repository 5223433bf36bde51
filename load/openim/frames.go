package openim

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/load/framecache"
	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// handleFrame decodes one binary frame: a push (decoded once per process,
// see framecache), a kick, or the answer to a request.
func (c *conn) handleFrame(frame []byte) error {
	key := framecache.Key(frame)
	if arrivals, _ := c.d.frames.Get(key, frame); arrivals != nil {
		c.local.held(c.d, arrivals)
		for _, a := range arrivals {
			c.h.Arrive(a)
		}
		return nil
	}
	resp := new(wire.Resp)
	if err := c.codec.DecodeResp(frame, resp); err != nil {
		return err
	}
	switch resp.ReqIdentifier {
	case wire.PushMsg:
		var push pb.PushMessages
		if err := proto.Unmarshal(resp.Data, &push); err != nil {
			return fmt.Errorf("decode push: %w", err)
		}
		arrivals := c.arrivals(push.Msgs, false, false)
		c.d.frames.Put(key, frame, arrivals)
		c.local.held(c.d, arrivals)
		for _, a := range arrivals {
			c.h.Arrive(a)
		}
	case wire.KickOnlineMsg:
		c.kicked.Store(true)
	default:
		if p, ok := c.pending.Take(resp.MsgIncr); ok {
			p.cb(resp, nil)
		}
	}
	return nil
}

// arrivals resolves decoded messages to plan indexes; pushed texts are
// parsed here, once for every receiver of the frame.
func (c *conn) arrivals(msgs map[string]*pb.PullMsgs, pulled, recover bool) []verify.Arrival {
	var out []verify.Arrival
	for id, pm := range msgs {
		cv, ok := c.d.byID[id]
		if !ok || pm == nil {
			continue // not a conversation of the plan (e.g. notifications)
		}
		for _, m := range pm.Msgs {
			a := verify.Arrival{
				Conv:     cv,
				Seq:      uint64(max(m.Seq, 0)),
				Sender:   c.d.plan.ParseUserID(m.SendID),
				CreateMs: m.CreateTime,
				Pulled:   pulled,
				GapFill:  recover,
				// A notification's copy stored in the conversation
				// (open-im-server's isSendMsg: one per imported friend,
				// group created, invitation): it takes a seq and is no
				// message of the run.
				Notice: m.ContentType >= notificationBegin && m.ContentType <= notificationEnd,
			}
			// Only a notice's seq counts: its content, JSON that is no
			// text message's, is not read.
			if !a.Notice {
				a.Text = wire.ContentText(m.Content)
			}
			if !pulled && !a.Notice {
				a.Parsed = verify.Parse(a.Text)
			}
			out = append(out, a)
		}
	}
	return out
}

// OpenIM's notification content types (protocol constant.go
// NotificationBegin, NotificationEnd).
const notificationBegin, notificationEnd = 1000, 5000
