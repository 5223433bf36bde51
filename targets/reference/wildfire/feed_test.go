package wildfire_test

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// A private message: the receiver gets MN {type 0, head 1}, pulls it with
// every field, current == head; the sender gets no MN. A pull trims what
// the client says it has.
func TestNotifyPullPrivate(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	a, _ := online(t, tg, "a")
	b, _ := online(t, tg, "b")
	uid := a.mustSend(wire.ConvPrivate, "b", "hello")
	if n := b.notify(2 * time.Second); n.GetType() != wire.PullNormal || n.GetHead() != 1 || n.Target != nil {
		t.Fatalf("MN %v", n)
	}
	r := b.pull(0, wire.PullNormal)
	if len(r.Message) != 1 || r.GetCurrent() != 1 || r.GetHead() != 1 {
		t.Fatalf("pull %v", r)
	}
	m := r.Message[0]
	conv := m.GetConversation()
	if conv.GetType() != wire.ConvPrivate || conv.GetTarget() != "b" || conv.Line == nil || m.GetFromUser() != "a" ||
		m.GetMessageId() != uid || m.GetServerTimestamp() <= 0 || m.GetContent().GetSearchableContent() != "hello" ||
		m.GetContent().GetPersistFlag() != wire.PersistStoreCount {
		t.Fatalf("message %v", m)
	}
	a.noNotify(100 * time.Millisecond)

	for _, s := range []string{"m2", "m3", "m4"} {
		a.mustSend(wire.ConvPrivate, "b", s)
	}
	for want := int64(2); want <= 4; want++ {
		if n := b.notify(2 * time.Second); n.GetHead() != want {
			t.Fatalf("MN head %d, want %d", n.GetHead(), want)
		}
	}
	if r := b.pull(1, wire.PullNormal); texts(r) != "[a:m2 a:m3 a:m4]" || r.GetCurrent() != 4 || r.GetHead() != 4 {
		t.Fatalf("pull from 1: %s %d/%d", texts(r), r.GetCurrent(), r.GetHead())
	}
	// Pulling from 4 trims up to 4: nothing is left, even from 0.
	if r := b.pull(4, wire.PullNormal); len(r.Message) != 0 || r.GetCurrent() != 4 || r.GetHead() != 4 {
		t.Fatalf("pull from 4: %v", r)
	}
	if r := b.pull(0, wire.PullNormal); len(r.Message) != 0 || r.GetCurrent() != 4 {
		t.Fatalf("after trimming: %v", r)
	}
	if n := tg.Counter(t, "imbench_target_wildfire_feed_messages"); n != 0 {
		t.Fatalf("feed messages held %v", n)
	}
	// B answers: A's feed starts at 1.
	b.mustSend(wire.ConvPrivate, "a", "back")
	if n := a.notify(2 * time.Second); n.GetHead() != 1 {
		t.Fatalf("A's MN %v", n)
	}
	if r := a.pull(0, wire.PullNormal); texts(r) != "[b:back]" || r.Message[0].GetConversation().GetTarget() != "a" {
		t.Fatalf("A pulls %v", r)
	}
	if n := tg.Counter(t, "imbench_target_messages_pulled_total"); n != 5 {
		t.Fatalf("pulled %v, want 5", n)
	}
	if c, _ := b.puback(b.requestPB(wire.TopicPullMessage, &pb.PullMessageRequest{Id: proto.Int64(0), Type: proto.Int32(2)})); c != wire.CodeInvalidParameter {
		t.Fatalf("pull type 2: %s", c)
	}
}

// A group message reaches every other member's feed with an MN; a pull
// answers about 512 KB at most, current < head saying there is more.
func TestNotifyPullGroupAndPages(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	a, _ := online(t, tg, "a")
	b, _ := online(t, tg, "b")
	c, _ := online(t, tg, "c")
	out, _ := online(t, tg, "out")
	createGroup(t, tg, "g", "a", "b", "c")
	a.mustSend(wire.ConvGroup, "g", "to all")
	for _, x := range []*client{b, c} {
		if n := x.notify(2 * time.Second); n.GetHead() != 1 {
			t.Fatalf("MN %v", n)
		}
		r := x.pull(0, wire.PullNormal)
		if texts(r) != "[a:to all]" || r.Message[0].GetConversation().GetTarget() != "g" || r.Message[0].GetConversation().GetType() != wire.ConvGroup {
			t.Fatalf("group pull %v", r)
		}
	}
	a.noNotify(50 * time.Millisecond)
	out.noNotify(50 * time.Millisecond)

	big := strings.Repeat("x", 200<<10)
	for range 3 {
		a.mustSend(wire.ConvPrivate, "b", big)
	}
	r := b.pull(1, wire.PullNormal)
	if len(r.Message) != 2 || r.GetCurrent() != 3 || r.GetHead() != 4 {
		t.Fatalf("first page: %d messages, current %d head %d", len(r.Message), r.GetCurrent(), r.GetHead())
	}
	r = b.pull(r.GetCurrent(), wire.PullNormal)
	if len(r.Message) != 1 || r.GetCurrent() != 4 || r.GetHead() != 4 || len(r.Message[0].GetContent().GetSearchableContent()) != len(big) {
		t.Fatalf("second page: %d messages, current %d head %d", len(r.Message), r.GetCurrent(), r.GetHead())
	}
}

// A level-6 client gets a large pull gzipped (code 255).
func TestGzippedPull(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	a, _ := online(t, tg, "a")
	cr := getToken(t, tg, "b", "c-b", wire.PlatformLinux)
	b := dial(t, tg)
	b.cr = cr
	cn := wire.NewConnect(cr.clientID, "b", wire.ConnectPassword(cr.cipher, cr.tok.DESToken, wire.HourNow()), 60)
	cn.Level = wire.LevelWF2
	if ack := b.connectWith(cn); ack.ReturnCode != 0 {
		t.Fatal(ack.ReturnCode)
	}
	a.mustSend(wire.ConvPrivate, "b", strings.Repeat("y", 10<<10))
	b.notify(2 * time.Second)
	code, res := b.puback(b.requestPB(wire.TopicPullMessage, &pb.PullMessageRequest{Id: proto.Int64(0), Type: proto.Int32(0)}))
	if code != wire.CodeSuccessGzipped {
		t.Fatalf("code %s", code)
	}
	plain, err := wire.Gunzip(res, 1<<20)
	var r pb.PullMessageResult
	if err != nil || proto.Unmarshal(plain, &r) != nil || len(r.Message) != 1 {
		t.Fatalf("gunzip: %v, %d messages", err, len(r.Message))
	}
}

// A user offline has its messages filed: CONNACK's msg_head says how far,
// MP id 0 returns them all. A user never connected (created only) too.
func TestOfflineFeed(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	a, _ := online(t, tg, "a")
	getToken(t, tg, "b", "c-b", wire.PlatformLinux)
	var res wire.APIResult[wire.CreateUserResult]
	post(t, tg, wire.PathUserCreate, wire.CreateUserReq{UserID: "d", Name: "d"}, &res)
	createGroup(t, tg, "g", "a", "b", "d")
	a.mustSend(wire.ConvPrivate, "b", "one")
	a.mustSend(wire.ConvGroup, "g", "two")
	a.mustSend(wire.ConvPrivate, "b", "three")
	a.mustSend(wire.ConvPrivate, "d", "four")

	b, ack := online(t, tg, "b")
	if ack.GetMsgHead() != 3 {
		t.Fatalf("b's msg_head %d", ack.GetMsgHead())
	}
	b.noNotify(50 * time.Millisecond)
	if r := b.pull(0, wire.PullNormal); texts(r) != "[a:one a:two a:three]" || r.GetCurrent() != 3 || r.GetHead() != 3 {
		t.Fatalf("b pulls %s", texts(r))
	}
	d, ack := online(t, tg, "d")
	if ack.GetMsgHead() != 2 {
		t.Fatalf("d's msg_head %d", ack.GetMsgHead())
	}
	if r := d.pull(0, wire.PullNormal); texts(r) != "[a:two a:four]" {
		t.Fatalf("d pulls %s", texts(r))
	}
	if n := tg.Counter(t, "imbench_target_wildfire_feed_filed_total"); n != 5 {
		t.Fatalf("filed %v", n)
	}
	// Dropped, then back: what came meanwhile is there.
	b.write(wire.Disconnect{})
	b.closedWithin(time.Second)
	time.Sleep(50 * time.Millisecond)
	a.mustSend(wire.ConvPrivate, "b", "while away")
	b2, ack := online(t, tg, "b")
	if ack.GetMsgHead() != 4 {
		t.Fatalf("msg_head after reconnecting %d", ack.GetMsgHead())
	}
	if r := b2.pull(3, wire.PullNormal); texts(r) != "[a:while away]" {
		t.Fatalf("b pulls %s", texts(r))
	}
}

// Chatrooms: CRJ joins, a message reaches the members online through MN
// type 1 (target = the chatroom) and MP type 1; a non-member's send is 4;
// an unknown chatroom 253; CRQ quits.
func TestChatroom(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	var res wire.APIResult[wire.CreateChatroomResult]
	post(t, tg, wire.PathChatroomCreate, wire.CreateChatroomReq{ChatroomID: "r", Title: "R"}, &res)
	a, _ := online(t, tg, "a")
	b, _ := online(t, tg, "b")
	c, _ := online(t, tg, "c")
	join := func(x *client, topic, room string) wire.ErrorCode {
		code, _ := x.puback(x.requestPB(topic, &pb.IDBuf{Id: proto.String(room)}))
		return code
	}
	for _, x := range []*client{a, b} {
		if code := join(x, wire.TopicJoinChatroom, "r"); code != wire.CodeSuccess {
			t.Fatalf("CRJ %s", code)
		}
	}
	if code := join(c, wire.TopicJoinChatroom, "nope"); code != wire.CodeNotExist {
		t.Fatalf("CRJ unknown: %s", code)
	}
	if code, _ := c.send(wire.ConvChatroom, "r", "x"); code != wire.CodeServerError {
		t.Fatalf("non-member send: %s", code)
	}
	a.mustSend(wire.ConvChatroom, "r", "in the room")
	if n := b.notify(2 * time.Second); n.GetType() != wire.PullChatroom || n.GetHead() != 1 || n.GetTarget() != "r" {
		t.Fatalf("MN %v", n)
	}
	if r := b.pull(0, wire.PullNormal); len(r.Message) != 0 || r.GetHead() != 0 {
		t.Fatalf("normal feed %v", r)
	}
	r := b.pull(0, wire.PullChatroom)
	if texts(r) != "[a:in the room]" || r.GetHead() != 1 || r.Message[0].GetConversation().GetType() != wire.ConvChatroom {
		t.Fatalf("chatroom pull %v", r)
	}
	a.noNotify(50 * time.Millisecond)
	c.noNotify(50 * time.Millisecond)
	if code := join(b, wire.TopicQuitChatroom, "r"); code != wire.CodeSuccess {
		t.Fatalf("CRQ %s", code)
	}
	a.mustSend(wire.ConvChatroom, "r", "after")
	b.noNotify(100 * time.Millisecond)
}
