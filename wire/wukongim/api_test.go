package wukongim

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The JSON names are the server's: marshal and compare key sets.
func TestAPIJSONNames(t *testing.T) {
	keys := func(v any) map[string]bool {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for k := range m {
			out[k] = true
		}
		return out
	}
	set := func(names ...string) map[string]bool {
		out := map[string]bool{}
		for _, n := range names {
			out[n] = true
		}
		return out
	}
	cases := []struct {
		v    any
		want map[string]bool
	}{
		{UserTokenReq{}, set("uid", "token", "device_flag", "device_level")},
		{ChannelCreateReq{}, set("channel_id", "channel_type", "large", "ban", "disband", "send_ban",
			"allow_stranger", "reset", "subscribers")},
		{SubscriberAddReq{}, set("channel_id", "channel_type", "reset", "temp_subscriber", "subscribers")},
		{MessageSendReq{}, set("header", "client_msg_no", "from_uid", "channel_id", "channel_type", "expire", "payload")},
		{ChannelMessageSyncReq{}, set("login_uid", "channel_id", "channel_type", "start_message_seq",
			"end_message_seq", "limit", "pull_mode")},
		{ChannelMessageSyncResp{}, set("start_message_seq", "end_message_seq", "more", "messages")},
		{MessageResp{}, set("header", "setting", "message_id", "message_idstr", "client_msg_no", "message_seq",
			"from_uid", "channel_id", "channel_type", "expire", "timestamp", "payload")},
		{Result{Status: 200}, set("status")},
		{Result{Status: 400, Msg: "x"}, set("status", "msg")},
		{DataResult[MessageSendResult]{Status: 200}, set("status", "data")},
	}
	for _, c := range cases {
		if got := keys(c.v); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%T keys %v, want %v", c.v, got, c.want)
		}
	}
}

// Answers as the server writes them decode into these shapes.
func TestAPIDecodeServerAnswers(t *testing.T) {
	var send DataResult[MessageSendResult]
	if err := json.Unmarshal([]byte(`{"data":{"client_msg_no":"c1","message_id":1948001234567890123},"status":200}`), &send); err != nil ||
		send.Data.MessageID != 1948001234567890123 || send.Data.ClientMsgNo != "c1" || send.Status != 200 {
		t.Fatalf("send answer %+v %v", send, err)
	}
	var sync ChannelMessageSyncResp
	body := `{"start_message_seq":3,"end_message_seq":0,"more":0,"messages":[{"header":{"no_persist":0,"red_dot":1,"sync_once":0},
	"setting":0,"message_id":123,"message_idstr":"123","client_msg_no":"m","message_seq":3,"from_uid":"u1",
	"channel_id":"g1","channel_type":2,"expire":0,"timestamp":1700000000,"payload":"aGk="}]}`
	if err := json.Unmarshal([]byte(body), &sync); err != nil || len(sync.Messages) != 1 ||
		string(sync.Messages[0].Payload) != "hi" || sync.Messages[0].Header.RedDot != 1 || sync.Messages[0].MessageSeq != 3 {
		t.Fatalf("sync answer %+v %v", sync, err)
	}
	var e Result
	if err := json.Unmarshal([]byte(`{"msg":"频道ID不能为空！","status":400}`), &e); err != nil || e.OK() || e.Status != 400 {
		t.Fatalf("error answer %+v %v", e, err)
	}
	b, _ := json.Marshal(Result{Status: 200})
	if string(b) != `{"status":200}` {
		t.Fatalf("ok answer %s", b)
	}
	b, _ = json.Marshal(Result{Status: 400, Msg: "bad"})
	if string(b) != `{"msg":"bad","status":400}` {
		t.Fatalf("error answer %s", b)
	}
}
