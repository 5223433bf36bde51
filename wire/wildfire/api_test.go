package wildfire

import (
	"encoding/json"
	"testing"
)

// The request examples of wildfire.md §4 must come out of our types with the
// same keys and values.
func TestAPIRequestsMatchDoc(t *testing.T) {
	cases := []struct {
		v   any
		doc string
	}{
		{CreateGroupReq{Operator: "u1", Group: GroupJSON{
			GroupInfo: GroupInfoJSON{TargetID: "g1", Name: "G1", Owner: "u1", Type: GroupRestricted},
			Members:   []GroupMemberJSON{{MemberID: "u1", Type: MemberOwner}, {MemberID: "u2", Type: MemberNormal}},
		}, ToLines: []int32{0}},
			`{"operator":"u1","group":{"group_info":{"target_id":"g1","name":"G1","owner":"u1","type":2},"members":[{"member_id":"u1","type":2},{"member_id":"u2","type":0}]},"to_lines":[0]}`},
		{GetTokenReq{UserID: "u1", ClientID: "c1", Platform: PlatformLinux},
			`{"userId":"u1","clientId":"c1","platform":7}`},
		{AddGroupMemberReq{Operator: "u1", GroupID: "g1", Members: []GroupMemberJSON{{MemberID: "u3"}}},
			`{"operator":"u1","group_id":"g1","members":[{"member_id":"u3","type":0}]}`},
		{SendMessageReq{Sender: "u1", Conv: ConversationJSON{Type: ConvPrivate, Target: "u2"},
			Payload: MessagePayload{Type: ContentText, SearchableContent: "hi", PersistFlag: PersistStoreCount}},
			`{"sender":"u1","conv":{"type":0,"target":"u2","line":0},"payload":{"type":1,"searchableContent":"hi","persistFlag":3}}`},
		{CreateUserReq{UserID: "u1", Name: "u1", DisplayName: "U1"},
			`{"userId":"u1","name":"u1","displayName":"U1","type":0}`},
		{CreateChatroomReq{ChatroomID: "r1", Title: "Room"}, `{"chatroomId":"r1","title":"Room"}`},
	}
	for _, k := range cases {
		got, err := json.Marshal(k.v)
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, got, []byte(k.doc)) {
			t.Errorf("%T:\n got %s\nwant %s", k.v, got, k.doc)
		}
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// Answers shaped as §4 and §14 describe them decode into our types.
func TestAPIDecodeAnswers(t *testing.T) {
	var tok APIResult[GetTokenResult]
	if err := json.Unmarshal([]byte(`{"code":0,"msg":"success","result":{"userId":"u1","token":"abc"}}`), &tok); err != nil ||
		!tok.OK() || tok.Result.Token != "abc" || tok.Result.UserID != "u1" {
		t.Errorf("token %+v %v", tok, err)
	}
	var online APIResult[[]OnlineCountNode]
	if err := json.Unmarshal([]byte(`{"code":0,"msg":"success","result":[{"node":1,"count":42}]}`), &online); err != nil ||
		len(online.Result) != 1 || online.Result[0].Count != 42 {
		t.Errorf("online %+v %v", online, err)
	}
	var health APIResult[[]HealthNode]
	if err := json.Unmarshal([]byte(`{"code":0,"msg":"success","result":[{"node":"1","cpu":{"load":0.5,"cores":4},`+
		`"memory":{"free":1,"max":2,"avail":3},"disk":{"space":4,"free":5,"usable":6}}]}`), &health); err != nil ||
		health.Result[0].CPU.Cores != 4 || health.Result[0].Disk.Usable != 6 || health.Result[0].Memory.Avail != 3 {
		t.Errorf("health %+v %v", health, err)
	}
	var sent APIResult[SendMessageResult]
	if err := json.Unmarshal([]byte(`{"code":0,"msg":"success","result":{"messageUid":588578821752520705,"timestamp":1795392252609}}`), &sent); err != nil ||
		sent.Result.MessageUID != 588578821752520705 {
		t.Errorf("send %+v %v", sent, err)
	}
	var rl APIResult[CreateUserResult]
	if err := json.Unmarshal([]byte(`{"code":250,"msg":"over frequency"}`), &rl); err != nil || rl.Err() != CodeOverFrequency || rl.OK() {
		t.Errorf("rate limit %+v %v", rl, err)
	}
}

// An error envelope has no result key, as Gson writes it.
func TestAPIErrorEnvelope(t *testing.T) {
	b, _ := json.Marshal(APIResult[*CreateGroupResult]{Code: int(CodeAPINotSigned), Msg: "x"})
	if string(b) != `{"code":239,"msg":"x"}` {
		t.Errorf("%s", b)
	}
	b, _ = json.Marshal(APIResult[[]OnlineCountNode]{Code: 0, Msg: MsgSuccess, Result: []OnlineCountNode{{1, 0}}})
	if string(b) != `{"code":0,"msg":"success","result":[{"node":1,"count":0}]}` {
		t.Errorf("%s", b)
	}
}
