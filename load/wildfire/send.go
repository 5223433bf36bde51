package wildfire

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/load/plan"
	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// SendError is an MS the server refused.
type SendError struct{ Code wire.ErrorCode }

func (e *SendError) Error() string {
	if e.Code == wire.CodeOverFrequency {
		return "MS refused: code 250 OverFrequency: the server's client.request_rate_limit is below this load (the seed's method sets 1000000)"
	}
	return fmt.Sprintf("MS refused: code %d %s", e.Code, e.Code)
}

// Send implements engine.Conn: an MS of a text message (content type 1,
// persisted and counted as real texts are), answered by its PUBACK.
func (c *conn) Send(m plan.Msg, text []byte, createMs int64, done func(error)) error {
	typ, target := c.d.target(m.Conv, m.Sender)
	msg := &pb.Message{
		Conversation: &pb.Conversation{Type: proto.Int32(typ), Target: proto.String(target), Line: proto.Int32(0)},
		FromUser:     proto.String(c.uid),
		Content: &pb.MessageContent{Type: proto.Int32(wire.ContentText), SearchableContent: proto.String(string(text)),
			PersistFlag: proto.Int32(wire.PersistStoreCount)},
	}
	plain, err := proto.Marshal(msg)
	if err != nil {
		return err
	}
	return c.request(wire.TopicSendMessage, plain, func(a wire.Puback, err error) {
		switch {
		case err != nil:
			done(err)
		case !a.Code.OK():
			done(&SendError{Code: a.Code})
		default:
			done(nil)
		}
	})
}
