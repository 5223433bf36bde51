package openim

import (
	"bytes"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

func TestCoreRefusalsAnswerWithOpenIMCodes(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
		msg  string
	}{
		{core.ErrBadArgs.With("d"), 1001, "ArgsError"},
		{core.ErrNoPermission.With("d"), 1002, "NoPermissionError"},
		{core.ErrUnknownUser.With("d"), 1101, "UserIDNotFoundError"},
		{core.ErrUnknownGroup.With("d"), 1201, "GroupIDNotFound"},
		{core.ErrNotMember.With("d"), 1203, "NotInGroupYetError"},
		{core.ErrSelf.With("d"), 1301, "CanNotAddYourselfError"},
		{core.ErrTokenInvalid.With("d"), 1502, "TokenInvalidError"},
		{core.ErrTokenKicked.With("d"), 1506, "TokenKickedError"},
		{core.ErrTokenUnknown.With("d"), 1507, "TokenNotExistError"},
		{core.ErrTooManyConns.With("d"), 1601, "ConnOverMaxNumLimit"},
		{core.ErrUnavailable.With("d"), 500, "ServerInternalError"},
		{existsAs(core.ErrExists.With("d"), wire.CodeRegistered), 1102, "RegisteredAlreadyError"},
		{existsAs(core.ErrExists.With("d"), wire.CodeGroupExisted), 1202, "GroupIDExisted"},
		{existsAs(core.ErrExists.With("d"), wire.CodeRelationship), 1304, "RelationshipAlreadyError"},
		{errors.New("d"), 500, "ServerInternalError"},
	} {
		r := refusalOf(c.err)
		if r.Code != c.code || r.Msg != c.msg || r.Dlt != "d" {
			t.Errorf("%v answered %+v, want %d %s", c.err, r, c.code, c.msg)
		}
	}
}

func TestConversationIDsMapToCoreKeys(t *testing.T) {
	for _, k := range []core.ConvKey{core.DirectKey("u_1", "u_10"), core.GroupKey("g_1")} {
		id := convID(k)
		for _, user := range []string{"u_1", "u_10"} {
			if got, ok := convKey(id, user); !ok || got != k {
				t.Errorf("%s asked by %s: %+v %v, want %+v", id, user, got, ok, k)
			}
		}
	}
	if _, ok := convKey("si_a_b", "c"); ok {
		t.Error("another pair's conversation mapped to a key")
	}
}

// A fanned-out push is encoded once per variant and every recipient of a
// variant gets the same bytes, carrying OpenIM's fields from the payload
// and seq, status and send time from the core.
func TestPushFramesAreMadeOncePerVariant(t *testing.T) {
	md := &pb.MsgData{SendID: "a", GroupID: "g", SessionType: wire.SessionGroup, ClientMsgID: "c",
		ContentType: wire.ContentTypeText, Content: []byte(`{"content":"x"}`)}
	payload, err := toPayload(md, "srv")
	if err != nil {
		t.Fatal(err)
	}
	p := &core.Push{Msg: &core.Message{Conv: core.GroupKey("g"), Sender: "a", Seq: 7, Time: 1234, Payload: payload}}
	if framesOf(p) != framesOf(p) {
		t.Fatal("two recipients of one push got two frame caches")
	}
	for v := range 4 {
		a, err := framesOf(p).frames(v)
		if err != nil || len(a) != 1 {
			t.Fatal(len(a), err)
		}
		b, _ := framesOf(p).frames(v)
		if &a[0][0] != &b[0][0] {
			t.Fatalf("variant %d encoded twice", v)
		}
	}
	raws, _ := framesOf(p).frames(variantOf(wire.Gob, false))
	raw := raws[0]
	var resp wire.Resp
	var push pb.PushMessages
	if err := wire.Gob.DecodeResp(raw, &resp); err != nil || resp.ReqIdentifier != wire.PushMsg {
		t.Fatalf("push envelope: %+v %v", resp, err)
	}
	if err := proto.Unmarshal(resp.Data, &push); err != nil {
		t.Fatal(err)
	}
	got := push.Msgs["sg_g"].GetMsgs()
	if len(got) != 1 || got[0].Seq != 7 || got[0].Status != wire.MsgStatusSendSuccess || got[0].SendTime != 1234 ||
		got[0].ServerMsgID != "srv" || !bytes.Equal(got[0].Content, md.Content) {
		t.Fatalf("pushed %+v", got)
	}
}

func TestMetricsKeepOpenIMNames(t *testing.T) {
	m := NewMetrics(core.NewMetrics())
	mfs, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, mf := range mfs {
		have[mf.GetName()] = true
	}
	for _, name := range []string{"online_user_num", "user_register_total", "user_login_total", "msg_long_time_push_total",
		"single_chat_msg_process_success_total", "single_chat_msg_process_failed_total",
		"group_chat_msg_process_success_total", "group_chat_msg_process_failed_total", "msg_insert_mongo_success_total",
		"imbench_target_connections", "imbench_target_pushes_total", "imbench_target_fault_lost_deliveries_total"} {
		if !have[name] {
			t.Errorf("no series %s", name)
		}
	}
}
