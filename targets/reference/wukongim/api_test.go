package wukongim_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// Without the managerToken every path is a bare 401; with it an unknown
// path (or method) is a JSON 404.
func TestAPIAuthAndUnknownRoutes(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	for _, path := range []string{wire.PathHealth, wire.PathUserToken, "/nowhere"} {
		for _, tok := range []string{"", "wrong"} {
			if st, body := apiCallToken(t, tg, tok, "GET", path, nil, nil); st != 401 || body != "" {
				t.Fatalf("%s with token %q: %d %q", path, tok, st, body)
			}
		}
	}
	for _, c := range [][2]string{{"GET", "/nowhere"}, {"GET", wire.PathUserToken}, {"POST", wire.PathHealth}} {
		if st, body := apiCall(t, tg, c[0], c[1], nil, nil); st != 404 || !strings.Contains(body, `"status":404`) {
			t.Fatalf("%s %s: %d %s", c[0], c[1], st, body)
		}
	}
	if st, body := apiCall(t, tg, "GET", wire.PathHealth, nil, nil); st != 200 || body != `{"status":"ok"}` {
		t.Fatalf("health: %d %s", st, body)
	}
}

// The setup routes answer the real envelopes and refuse what the real
// server refuses.
func TestAPISetupRoutes(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	for _, c := range []struct {
		path string
		body any
		ok   bool
	}{
		{wire.PathUserToken, wire.UserTokenReq{UID: "u1", Token: "t"}, true},
		{wire.PathUserToken, wire.UserTokenReq{UID: "u@1", Token: "t"}, false},
		{wire.PathUserToken, wire.UserTokenReq{UID: "u#1", Token: "t"}, false},
		{wire.PathUserToken, wire.UserTokenReq{UID: "u1"}, false},
		{wire.PathUserToken, "not an object", false},
		{wire.PathChannel, wire.ChannelCreateReq{ChannelID: "g1", ChannelType: wire.ChannelGroup, Subscribers: []string{"u1", "u2", "u2", ""}}, true},
		{wire.PathChannel, wire.ChannelCreateReq{ChannelID: "g1", ChannelType: wire.ChannelGroup, Subscribers: []string{"u3"}}, true},
		{wire.PathChannel, wire.ChannelCreateReq{ChannelID: "p", ChannelType: wire.ChannelPerson, Subscribers: []string{"u1"}}, false},
		{wire.PathChannel, wire.ChannelCreateReq{ChannelType: wire.ChannelGroup}, false},
		{wire.PathSubscriberAdd, wire.SubscriberAddReq{ChannelID: "g2", Subscribers: []string{"u1", "u4"}}, true},
		{wire.PathSubscriberAdd, wire.SubscriberAddReq{ChannelID: "g2", ChannelType: wire.ChannelPerson, Subscribers: []string{"u1"}}, false},
		{wire.PathSubscriberAdd, wire.SubscriberAddReq{ChannelID: "g2", TempSubscriber: 1, Subscribers: []string{"u1"}}, false},
		{wire.PathSubscriberRemove, wire.SubscriberRemoveReq{ChannelID: "g2", ChannelType: wire.ChannelGroup, Subscribers: []string{"u4"}}, true},
		{wire.PathSubscriberRemove, wire.SubscriberRemoveReq{ChannelID: "none", ChannelType: wire.ChannelGroup, Subscribers: []string{"u4"}}, true},
	} {
		var res wire.Result
		st, body := apiCall(t, tg, "POST", c.path, c.body, &res)
		if c.ok && (st != 200 || body != `{"status":200}`) || !c.ok && (st != 400 || res.Status != 400 || res.Msg == "") {
			t.Fatalf("%s %+v: %d %s", c.path, c.body, st, body)
		}
	}
	for id, want := range map[string][]string{"g1": {"u1", "u2", "u3"}, "g2": {"u1"}} {
		if got, err := tg.Core.Members(id); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s members %v %v, want %v", id, got, err, want)
		}
	}
	apiCall(t, tg, "POST", wire.PathChannel, wire.ChannelCreateReq{ChannelID: "g1", ChannelType: wire.ChannelGroup, Reset: 1, Subscribers: []string{"u4"}}, nil)
	if got, _ := tg.Core.Members("g1"); fmt.Sprint(got) != "[u4]" {
		t.Fatalf("after reset: %v", got)
	}
	// Tokens are per device flag: u1's APP token does not log in as WEB.
	c := dial(t, tg, viaTCP)
	if _, err := c.tryConnect(login{uid: "u1", token: "t", flag: wire.DeviceWeb}, 300*time.Millisecond); err == nil {
		t.Fatal("APP token logged in on WEB")
	}
	dial(t, tg, viaTCP).connect(login{uid: "u1", token: "t"})
}

// messagesync pages a channel up from a seq (more 1 until the last page),
// down from one, or its newest; a person channel is named by the peer and
// its messages' channel_id is the party other than the sender.
func TestMessageSyncPaging(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	users(t, tg, "a", "b")
	a := online(t, tg, viaTCP, "a")
	for i := range 25 {
		a.write(a.sendPacket("b", wire.ChannelPerson, fmt.Sprint("m", i+1)))
		a.must(5 * time.Second)
	}
	var res wire.DataResult[wire.MessageSendResult]
	if st, body := apiCall(t, tg, "POST", wire.PathMessageSend, wire.MessageSendReq{Header: wire.MessageHeader{RedDot: 1}, FromUID: "b",
		ChannelID: "a", ChannelType: wire.ChannelPerson, Payload: []byte("m26")}, &res); st != 200 || res.Status != 200 ||
		res.Data.MessageID == 0 || res.Data.ClientMsgNo == "" || !strings.HasPrefix(body, `{"data":{"message_id":`) {
		t.Fatalf("message/send: %d %s", st, body)
	}
	if r, text := a.recv(5 * time.Second); text != "m26" || r.FromUID != "b" || r.ChannelID != "b" || r.MessageSeq != 26 {
		t.Fatalf("admin send's RECV %+v %q", r, text)
	}
	sync := func(login, channel string, start, end uint64, limit, mode int) wire.ChannelMessageSyncResp {
		t.Helper()
		var p wire.ChannelMessageSyncResp
		if st, body := apiCall(t, tg, "POST", wire.PathChannelMessageSync, wire.ChannelMessageSyncReq{LoginUID: login, ChannelID: channel,
			ChannelType: wire.ChannelPerson, StartMessageSeq: start, EndMessageSeq: end, Limit: limit, PullMode: mode}, &p); st != 200 {
			t.Fatalf("sync: %d %s", st, body)
		}
		return p
	}
	seqs := func(p wire.ChannelMessageSyncResp) string {
		var b strings.Builder
		for _, m := range p.Messages {
			fmt.Fprintf(&b, "%d ", m.MessageSeq)
		}
		return fmt.Sprintf("%smore=%d", b.String(), p.More)
	}
	var got []string
	for start := uint64(1); ; {
		p := sync("b", "a", start, 0, 10, wire.PullUp)
		got = append(got, seqs(p))
		if p.More == 0 {
			break
		}
		start = p.Messages[len(p.Messages)-1].MessageSeq + 1
	}
	if fmt.Sprint(got) != "[1 2 3 4 5 6 7 8 9 10 more=1 11 12 13 14 15 16 17 18 19 20 more=1 21 22 23 24 25 26 more=0]" {
		t.Fatalf("pages up: %v", got)
	}
	for _, c := range []struct {
		name           string
		start, end     uint64
		limit, mode    int
		want           string
		login, channel string
	}{
		{"newest", 0, 0, 3, wire.PullDown, "24 25 26 more=1", "a", "b"},
		{"up to an end", 5, 8, 10, wire.PullUp, "5 6 7 more=0", "a", "b"},
		{"down", 20, 0, 4, wire.PullDown, "17 18 19 20 more=1", "a", "b"},
		{"down to an end", 20, 18, 10, wire.PullDown, "19 20 more=0", "b", "a"},
		{"past the end", 27, 0, 10, wire.PullUp, "more=0", "a", "b"},
		{"no such channel", 1, 0, 10, wire.PullUp, "more=0", "a", "zed"},
	} {
		if got := seqs(sync(c.login, c.channel, c.start, c.end, c.limit, c.mode)); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	p := sync("a", "b", 25, 0, 2, wire.PullUp)
	m, admin := p.Messages[0], p.Messages[1]
	// Both were sent with RedDot: the real server answers the first of a
	// page with no header flags (its store's iterator skips that column).
	if m.FromUID != "a" || m.ChannelID != "b" || admin.FromUID != "b" || admin.ChannelID != "a" || string(m.Payload) != "m25" ||
		m.Header.RedDot != 0 || admin.Header.RedDot != 1 || m.MessageIDStr != fmt.Sprint(m.MessageID) || m.ClientMsgNo != "b-m25" || m.ChannelType != wire.ChannelPerson ||
		time.Now().Unix()-int64(m.Timestamp) > 5 || p.StartMessageSeq != 25 {
		t.Fatalf("messages %+v %+v", m, admin)
	}
	if st, _ := apiCall(t, tg, "POST", wire.PathChannelMessageSync, wire.ChannelMessageSyncReq{LoginUID: "a", ChannelID: "b",
		ChannelType: wire.ChannelPerson, StartMessageSeq: 3, EndMessageSeq: 9}, nil); st != 400 {
		t.Fatalf("down with end above start: %d", st)
	}
	if n := tg.Counter(t, "imbench_target_messages_pulled_total"); n == 0 {
		t.Fatal("pulls not counted")
	}
	var max wire.ChannelMaxSeqResp
	if apiCall(t, tg, "GET", wire.PathChannelMaxSeq+"?channel_id=b@a&channel_type=1", nil, &max); max.MessageSeq != 26 {
		t.Fatalf("max seq %d", max.MessageSeq)
	}
}

// /route answers the front end's addresses; /varz counts what connections
// did.
func TestRouteAndVarz(t *testing.T) {
	tg := reftest.StartWuKongIMWith(t, core.Faults{}, reftest.WKOptions{RetryInterval: time.Hour})
	var r wire.RouteResp
	apiCall(t, tg, "GET", wire.PathRoute, nil, &r)
	if "tcp://"+r.TCPAddr != tg.TCPAddr || r.WSAddr != tg.WSURL {
		t.Fatalf("route %+v", r)
	}
	apiCall(t, tg, "GET", wire.PathRoute+"?intranet=1", nil, &r)
	if r.WSAddr != "" || r.TCPAddr == "" {
		t.Fatalf("intranet route %+v", r)
	}
	users(t, tg, "a", "b")
	a, b := online(t, tg, viaTCP, "a"), online(t, tg, viaWS, "b")
	for range 3 {
		a.write(a.sendPacket("b", wire.ChannelPerson, "x"))
		a.must(5 * time.Second)
		b.recv(5 * time.Second)
	}
	var v struct {
		wire.Varz
		TCPAddr string `json:"tcp_addr"`
	}
	// The counts follow the writes' returns, which may come after the
	// client has read what they wrote.
	deadline := time.Now().Add(5 * time.Second)
	for {
		apiCall(t, tg, "GET", wire.PathVarz, nil, &v)
		if v.OutMsgs == 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if v.Connections != 2 || v.InMsgs != 3 || v.OutMsgs != 3 || v.RetryQueue != 3 || v.InBytes == 0 || v.OutBytes == 0 ||
		v.Uptime == "" || v.Goroutine == 0 || v.Mem == 0 || v.CPU < 0 || v.CPU > 100*float64(runtime.NumCPU()) ||
		v.TCPAddr != r.TCPAddr || v.ServerName != "WuKongIM" {
		t.Fatalf("varz %+v", v)
	}
	if g := tg.Counter(t, "app_conn_count"); g != 2 {
		t.Fatalf("app_conn_count %v", g)
	}
	if g := tg.Counter(t, "app_online_user_count"); g != 2 {
		t.Fatalf("app_online_user_count %v", g)
	}
	if n := tg.Counter(t, "app_send_packet_count_total"); n != 3 {
		t.Fatalf("app_send_packet_count_total %v", n)
	}
	a.close()
	b.close()
	deadline = time.Now().Add(5 * time.Second)
	for tg.Counter(t, "app_conn_count") != 0 || tg.Counter(t, "app_online_user_count") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("connections still counted after closing")
		}
		time.Sleep(10 * time.Millisecond)
	}
	apiCall(t, tg, "GET", wire.PathVarz, nil, &v)
	if v.RetryQueue != 0 || v.Connections != 0 {
		t.Fatalf("after close: varz %+v", v)
	}
}
