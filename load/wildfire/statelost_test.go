package wildfire

import (
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// The real im-server answers a pull from 0 of a user's empty feed with
// current and head 2, and then gives that user's head as 0 in the CONNACK
// of a later login (a silent user the server closed for idleness): not a
// server that lost its state. A head below a message the user was shown
// still is one.
func TestAnEmptyFeedsTwoIsNotAStateTheServerLost(t *testing.T) {
	p, err := plan.Workload{Name: "wildfire/held", Prefix: "hd_", BodySize: 200, Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"groups","groups":1,"members":4,"rate":1,"messages":1}`)}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	group := p.GroupID(p.Convs[0].Group)
	d := &Driver{plan: p, users: make([]string, p.Users), groupOf: map[string]uint32{group: 0}}
	for i := range d.users {
		d.users[i] = p.UserID(uint32(i))
	}
	d.heads[wire.PullNormal] = make([]atomic.Int64, p.Users)
	d.held = make([]atomic.Int64, p.Users)
	ciph, err := wire.NewCipher("0123456789abcdef-session-secret")
	if err != nil {
		t.Fatal(err)
	}
	answer := func(res *pb.PullMessageResult) wire.Puback {
		raw, err := proto.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return wire.Puback{PacketID: 1, Data: ciph.Encrypt(wire.HourNow(), raw)}
	}
	sender, me := p.Members(0)[1], p.Members(0)[0]
	h := &checking{ck: &verify.Checker{Run: []byte(p.RunID), Plan: p}, in: verify.NewInbox(me)}
	c := &conn{d: d, user: me, uid: p.UserID(me), h: h, s: &session{cipher: ciph}}

	c.pulled(wire.PullNormal, 0, answer(&pb.PullMessageResult{Current: proto.Int64(2), Head: proto.Int64(2)}), nil)
	if got := d.heads[wire.PullNormal][me].Load(); got != 2 {
		t.Fatalf("the next pull starts at %d; the SDK's starts at the answer's current, 2", got)
	}
	if err := d.stateLost(me, 0); err != nil {
		t.Fatalf("a CONNACK head of 0 after the empty feed's answer: %v", err)
	}

	const seq = 588578821752520705
	text := verify.AppendBody(nil, p.RunID, sender, 0, 1, time.Now().UnixMicro(), 200)
	c.pulled(wire.PullNormal, 2, answer(&pb.PullMessageResult{Current: proto.Int64(seq), Head: proto.Int64(seq), Message: []*pb.Message{{
		Conversation: &pb.Conversation{Type: proto.Int32(wire.ConvGroup), Target: proto.String(group), Line: proto.Int32(0)},
		FromUser:     proto.String(p.UserID(sender)),
		Content: &pb.MessageContent{Type: proto.Int32(wire.ContentText), SearchableContent: proto.String(string(text)),
			PersistFlag: proto.Int32(3)},
		MessageId: proto.Int64(seq), ServerTimestamp: proto.Int64(time.Now().UnixMilli()),
	}}}), nil)
	if h.tally.Pulled[verify.KindIndex(plan.Group)].Load() != 1 {
		t.Fatal("the pulled message did not arrive")
	}
	if err := d.stateLost(me, seq); err != nil {
		t.Fatalf("a CONNACK head equal to what arrived: %v", err)
	}
	if err := d.stateLost(me, 0); !errors.Is(err, engine.ErrStateLost) {
		t.Fatalf("a CONNACK head of 0 after message %d arrived: %v, want the server lost its state", seq, err)
	}
}
