package wukongim_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// subscribers adds (or removes) uids to live channel id over the API.
func subscribers(t testing.TB, tg *reftest.WKTarget, path, id string, uids ...string) {
	t.Helper()
	var body any = wire.SubscriberAddReq{ChannelID: id, ChannelType: wire.ChannelLive, Subscribers: uids}
	if path == wire.PathSubscriberRemove {
		body = wire.SubscriberRemoveReq{ChannelID: id, ChannelType: wire.ChannelLive, Subscribers: uids}
	}
	if st, res := apiCall(t, tg, http.MethodPost, path, body, nil); st != 200 || res != `{"status":200}` {
		t.Fatalf("%s %s %v: %d %s", path, id, uids, st, res)
	}
}

func sendOK(t testing.TB, c *client, s wire.Send) wire.Sendack {
	t.Helper()
	c.write(s)
	ack, ok := c.must(5 * time.Second).(wire.Sendack)
	if !ok || ack.ReasonCode != wire.ReasonSuccess || ack.ClientSeq != s.ClientSeq {
		t.Fatalf("SENDACK %+v", ack)
	}
	return ack
}

// recvRoom waits for a RECV of live channel room and acknowledges it.
func recvRoom(t testing.TB, c *client, room, from, text string, seq uint32) {
	t.Helper()
	r, got := c.recv(5 * time.Second)
	if got != text || r.ChannelID != room || r.ChannelType != wire.ChannelLive || r.FromUID != from || r.MessageSeq != seq ||
		r.ClientMsgNo != room+"-"+text {
		t.Fatalf("RECV %+v %q, want %q from %s, seq %d", r, got, text, from, seq)
	}
	c.write(wire.Recvack{Flags: r.Flags, MessageID: r.MessageID, MessageSeq: r.MessageSeq})
}

// Live channels are chatrooms: subscribers join and leave over the API, a
// SEND reaches the members of that moment (RECV named by the room and type
// 9, encrypted like the rest), a non-member is refused with 3, and the room
// keeps nothing to sync, though its seqs go on.
func TestChatroomJoinSendLeave(t *testing.T) {
	for _, via := range both {
		t.Run(via, func(t *testing.T) {
			tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
			users(t, tg, "a", "b", "c", "d")
			subscribers(t, tg, wire.PathSubscriberAdd, "r", "a", "b")
			a, b, c, d := online(t, tg, via, "a"), online(t, tg, via, "b"), online(t, tg, via, "c"), online(t, tg, via, "d")
			a2 := dial(t, tg, via)
			a2.connect(login{uid: "a", token: "tk-a", deviceID: "a-second"})
			if a.cipher == nil {
				t.Fatal("no encryption")
			}

			if ack := sendOK(t, a, a.sendPacket("r", wire.ChannelLive, "m1")); ack.MessageSeq != 1 || ack.MessageID == 0 {
				t.Fatalf("first SENDACK %+v", ack)
			}
			recvRoom(t, b, "r", "a", "m1", 1)
			recvRoom(t, a2, "r", "a", "m1", 1) // the sender's other device
			c.write(c.sendPacket("r", wire.ChannelLive, "x"))
			if ack := c.must(5 * time.Second).(wire.Sendack); ack.ReasonCode != wire.ReasonSubscriberNotExist {
				t.Fatalf("a non-member's SENDACK %+v, want reason 3", ack)
			}

			// c joins: it gets what is sent from now on, and may send.
			subscribers(t, tg, wire.PathSubscriberAdd, "r", "c")
			sendOK(t, b, b.sendPacket("r", wire.ChannelLive, "m2"))
			recvRoom(t, a, "r", "b", "m2", 2)
			recvRoom(t, a2, "r", "b", "m2", 2)
			recvRoom(t, c, "r", "b", "m2", 2)

			// b leaves: no more RECVs, and no more sending.
			subscribers(t, tg, wire.PathSubscriberRemove, "r", "b")
			sendOK(t, c, c.sendPacket("r", wire.ChannelLive, "m3"))
			recvRoom(t, a, "r", "c", "m3", 3)
			recvRoom(t, a2, "r", "c", "m3", 3)
			b.write(b.sendPacket("r", wire.ChannelLive, "x"))
			if ack := b.must(5 * time.Second).(wire.Sendack); ack.ReasonCode != wire.ReasonSubscriberNotExist {
				t.Fatalf("a leaver's SENDACK %+v, want reason 3", ack)
			}

			// The admin send reaches the room too.
			var res wire.DataResult[wire.MessageSendResult]
			if st, body := apiCall(t, tg, http.MethodPost, wire.PathMessageSend, wire.MessageSendReq{FromUID: "a", ClientMsgNo: "r-m4",
				ChannelID: "r", ChannelType: wire.ChannelLive, Payload: []byte("m4")}, &res); st != 200 || res.Data.MessageID == 0 {
				t.Fatalf("message/send: %d %s", st, body)
			}
			recvRoom(t, a, "r", "a", "m4", 4)
			recvRoom(t, a2, "r", "a", "m4", 4)
			recvRoom(t, c, "r", "a", "m4", 4)
			for _, q := range []*client{a, a2, b, c, d} {
				q.quiet()
			}

			var page wire.ChannelMessageSyncResp
			if st, body := apiCall(t, tg, http.MethodPost, wire.PathChannelMessageSync, wire.ChannelMessageSyncReq{LoginUID: "c", ChannelID: "r",
				ChannelType: wire.ChannelLive, StartMessageSeq: 1, Limit: 10, PullMode: wire.PullUp}, &page); st != 200 ||
				len(page.Messages) != 0 || page.More != 0 || page.StartMessageSeq != 1 {
				t.Fatalf("messagesync of a live channel: %d %s", st, body)
			}
			var max wire.ChannelMaxSeqResp
			if apiCall(t, tg, http.MethodGet, wire.PathChannelMaxSeq+"?channel_id=r&channel_type=9", nil, &max); max.MessageSeq != 4 {
				t.Fatalf("max seq %d", max.MessageSeq)
			}
		})
	}
}

// The API's live-channel routes: subscriber_add creates the room, an empty
// subscriber list is refused, POST /channel creates one with its
// subscribers (reset replacing them), removing from a room that does not
// exist is no error.
func TestChatroomAPI(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	users(t, tg, "a")
	for _, c := range []struct {
		path string
		body any
		ok   bool
	}{
		{wire.PathSubscriberAdd, wire.SubscriberAddReq{ChannelID: "r1", ChannelType: wire.ChannelLive, Subscribers: []string{"a", "new"}}, true},
		{wire.PathSubscriberAdd, wire.SubscriberAddReq{ChannelID: "r1", ChannelType: wire.ChannelLive}, false},
		{wire.PathSubscriberAdd, wire.SubscriberAddReq{ChannelID: "r1", ChannelType: wire.ChannelLive, Subscribers: []string{""}}, false},
		{wire.PathSubscriberAdd, wire.SubscriberAddReq{ChannelID: "r@1", ChannelType: wire.ChannelLive, Subscribers: []string{"a"}}, false},
		{wire.PathSubscriberAdd, wire.SubscriberAddReq{ChannelID: "r1", ChannelType: wire.ChannelLive, TempSubscriber: 1, Subscribers: []string{"a"}}, false},
		{wire.PathSubscriberAdd, wire.SubscriberAddReq{ChannelID: "r1", ChannelType: wire.ChannelInfo, Subscribers: []string{"a"}}, false},
		{wire.PathSubscriberRemove, wire.SubscriberRemoveReq{ChannelID: "r1", ChannelType: wire.ChannelLive}, false},
		{wire.PathSubscriberRemove, wire.SubscriberRemoveReq{ChannelID: "none", ChannelType: wire.ChannelLive, Subscribers: []string{"a"}}, true},
		{wire.PathChannel, wire.ChannelCreateReq{ChannelID: "r2", ChannelType: wire.ChannelLive, Subscribers: []string{"x", "y", "x"}}, true},
		{wire.PathChannel, wire.ChannelCreateReq{ChannelID: "r3", ChannelType: wire.ChannelLive}, true},
	} {
		var res wire.Result
		st, body := apiCall(t, tg, http.MethodPost, c.path, c.body, &res)
		if c.ok && (st != 200 || body != `{"status":200}`) || !c.ok && (st != 400 || res.Status != 400 || res.Msg == "") {
			t.Fatalf("%s %+v: %d %s", c.path, c.body, st, body)
		}
	}
	apiCall(t, tg, http.MethodPost, wire.PathChannel, wire.ChannelCreateReq{ChannelID: "r1", ChannelType: wire.ChannelLive, Reset: 1, Subscribers: []string{"z"}}, nil)
	for id, want := range map[string]string{"r1": "[z]", "r2": "[x y]", "r3": "[]"} {
		if got, err := tg.Core.RoomMembers(id); err != nil || fmt.Sprint(got) != want {
			t.Fatalf("%s members %v %v, want %s", id, got, err, want)
		}
	}
	if _, err := tg.Core.Members("r2"); err == nil {
		t.Fatal("a live channel made a group")
	}
	// Subscribers the API created are users: they may log in once given a token.
	users(t, tg, "x")
	x := online(t, tg, viaTCP, "x")
	sendOK(t, x, x.sendPacket("r2", wire.ChannelLive, "hi"))
}

// A lost chatroom message is acknowledged, never pushed, and owes a
// delivery to every other member when it was sent, online or not.
func TestChatroomLoseCounted(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{Lose: 1}, 0)
	users(t, tg, "a", "b", "c")
	subscribers(t, tg, wire.PathSubscriberAdd, "r", "a", "b", "c") // c stays offline
	a, b := online(t, tg, viaTCP, "a"), online(t, tg, viaTCP, "b")
	sendOK(t, a, a.sendPacket("r", wire.ChannelLive, "x"))
	b.quiet()
	if n := tg.Counter(t, "imbench_target_fault_lost_deliveries_total"); n != 2 {
		t.Fatalf("lost deliveries %v, want 2", n)
	}
	if n := tg.Counter(t, "imbench_target_fault_lost_messages_total"); n != 1 {
		t.Fatalf("lost messages %v, want 1", n)
	}
}
