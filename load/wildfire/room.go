package wildfire

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// Join implements engine.RoomConn: CRJ with the chatroom's id; its
// messages then come as MN type 1 and MP type 1 (§14).
func (c *conn) Join(conv uint32, done func(error)) error {
	_, id := c.d.target(conv, c.user)
	plain, err := proto.Marshal(&pb.IDBuf{Id: proto.String(id)})
	if err != nil {
		return err
	}
	return c.request(wire.TopicJoinChatroom, plain, func(a wire.Puback, err error) {
		if err == nil && !a.Code.OK() {
			err = fmt.Errorf("CRJ %s refused: code %d %s", id, a.Code, a.Code)
		}
		if err == nil {
			c.fmu.Lock()
			c.joined = true
			c.fmu.Unlock()
		}
		done(err)
	})
}
