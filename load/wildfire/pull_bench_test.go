package wildfire

import (
	"encoding/json"
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

// checking verifies each arrival as the engine does.
type checking struct {
	ck    *verify.Checker
	in    *verify.Inbox
	tally verify.Tally
}

func (h *checking) Arrive(a verify.Arrival) { h.ck.Receive(h.in, a, time.Now(), &h.tally) }

func (h *checking) Closed(engine.Conn, error, bool) {}

// BenchmarkPulled is a group member's MP answer of one message, from the
// PUBACK to the verifier's verdict.
func BenchmarkPulled(b *testing.B) {
	p, err := plan.Workload{Name: "wildfire/bench", Prefix: "bn_", BodySize: 200, Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"groups","groups":1,"members":4,"rate":1,"messages":1}`)}}.Build()
	if err != nil {
		b.Fatal(err)
	}
	group := p.GroupID(p.Convs[0].Group)
	d := &Driver{plan: p, groupOf: map[string]uint32{group: 0}}
	d.heads[wire.PullNormal] = make([]atomic.Int64, p.Users)
	d.held = make([]atomic.Int64, p.Users)
	ciph, err := wire.NewCipher("0123456789abcdef-session-secret")
	if err != nil {
		b.Fatal(err)
	}
	sender, me := p.Members(0)[1], p.Members(0)[0]
	text := verify.AppendBody(nil, p.RunID, sender, 0, 1, time.Now().UnixMicro(), 200)
	res, err := proto.Marshal(&pb.PullMessageResult{Current: proto.Int64(1), Head: proto.Int64(1), Message: []*pb.Message{{
		Conversation: &pb.Conversation{Type: proto.Int32(wire.ConvGroup), Target: proto.String(group), Line: proto.Int32(0)},
		FromUser:     proto.String(p.UserID(sender)),
		Content: &pb.MessageContent{Type: proto.Int32(wire.ContentText), SearchableContent: proto.String(string(text)),
			PersistFlag: proto.Int32(3)},
		MessageId: proto.Int64(1), ServerTimestamp: proto.Int64(time.Now().UnixMilli()),
	}}})
	if err != nil {
		b.Fatal(err)
	}
	a := wire.Puback{PacketID: 1, Data: ciph.Encrypt(wire.HourNow(), res)}
	h := &checking{ck: &verify.Checker{Run: []byte(p.RunID), Plan: p}, in: verify.NewInbox(me)}
	c := &conn{d: d, user: me, uid: p.UserID(me), h: h, s: &session{cipher: ciph}}
	b.ReportAllocs()
	for b.Loop() {
		c.pulled(wire.PullNormal, 0, a, nil)
	}
	if h.tally.Corrupt.Load()+h.tally.Foreign.Load() > 0 || h.tally.Pulled[verify.KindIndex(plan.Group)].Load() != 1 {
		b.Fatal("the pulled message did not verify")
	}
}
