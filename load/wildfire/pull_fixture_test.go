package wildfire

import (
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/load/conformance"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// pullFixture is a group of 4 with one member's driver state and session,
// to hand that member MP answers without a server.
type pullFixture struct {
	p          *plan.Plan
	d          *Driver
	ciph       *wire.Cipher
	group      string
	sender, me uint32
}

func newPullFixture(tb testing.TB) *pullFixture {
	tb.Helper()
	p, err := plan.Workload{Name: "wildfire/pulls", Prefix: "pl_", BodySize: 200, Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"groups","groups":1,"members":4,"rate":1,"messages":1}`)}}.Build()
	if err != nil {
		tb.Fatal(err)
	}
	f := &pullFixture{p: p, group: p.GroupID(p.Convs[0].Group), sender: p.Members(0)[1], me: p.Members(0)[0]}
	f.d = &Driver{plan: p, users: make([]string, p.Users), groupOf: map[string]uint32{f.group: 0}}
	for i := range f.d.users {
		f.d.users[i] = p.UserID(uint32(i))
	}
	f.d.heads[wire.PullNormal] = make([]atomic.Int64, p.Users)
	f.d.held = make([]atomic.Int64, p.Users)
	if f.ciph, err = wire.NewCipher("0123456789abcdef-session-secret"); err != nil {
		tb.Fatal(err)
	}
	return f
}

// conn is the member's connection, its arrivals going to h.
func (f *pullFixture) conn(h engine.Handler) *conn {
	return &conn{d: f.d, user: f.me, uid: f.p.UserID(f.me), h: h, s: &session{cipher: f.ciph}}
}

// answer is an MP's PUBACK carrying res.
func (f *pullFixture) answer(tb testing.TB, res *pb.PullMessageResult) wire.Puback {
	tb.Helper()
	raw, err := proto.Marshal(res)
	if err != nil {
		tb.Fatal(err)
	}
	return wire.Puback{PacketID: 1, Data: f.ciph.Encrypt(wire.HourNow(), raw)}
}

// message is the plan's first group message, as the server files it under seq.
func (f *pullFixture) message(seq int64) *pb.Message {
	text := verify.AppendBody(nil, f.p.RunID, f.sender, 0, 1, time.Now().UnixMicro(), 200)
	return &pb.Message{
		Conversation: &pb.Conversation{Type: proto.Int32(wire.ConvGroup), Target: proto.String(f.group), Line: proto.Int32(0)},
		FromUser:     proto.String(f.p.UserID(f.sender)),
		Content: &pb.MessageContent{Type: proto.Int32(wire.ContentText), SearchableContent: proto.String(string(text)),
			PersistFlag: proto.Int32(3)},
		MessageId: proto.Int64(seq), ServerTimestamp: proto.Int64(time.Now().UnixMilli()),
	}
}

// checker is a verifier of the member's arrivals.
func (f *pullFixture) checker() *conformance.Checking { return conformance.NewChecking(f.p, f.me) }
