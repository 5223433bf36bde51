package wildfire_test

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// MS's answers (§5.4, §5.5, §14).
func TestSendCodes(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	a, _ := online(t, tg, "a")
	getToken(t, tg, "b", "c-b", wire.PlatformLinux)
	createGroup(t, tg, "g", "b", "c")
	var room wire.APIResult[wire.CreateChatroomResult]
	post(t, tg, wire.PathChatroomCreate, wire.CreateChatroomReq{ChatroomID: "r", Title: "r"}, &room)

	before := time.Now().UnixMilli()
	code, res := a.puback(a.requestPB(wire.TopicSendMessage, textMessage(wire.ConvPrivate, "b", "hi")))
	uid, ts, err := wire.ParseSendResult(res)
	if code != wire.CodeSuccess || len(res) != 16 || err != nil || uid <= 0 || ts < before || ts > time.Now().UnixMilli() {
		t.Fatalf("MS: %s %x %v", code, res, err)
	}
	if next := a.mustSend(wire.ConvPrivate, "b", "again"); next <= uid {
		t.Fatalf("messageUids %d then %d", uid, next)
	}

	forbidden := textMessage(wire.ConvPrivate, "b", "recall")
	forbidden.Content.Type = proto.Int32(wire.ContentRecall)
	notify := textMessage(wire.ConvPrivate, "b", "group notification")
	notify.Content.Type = proto.Int32(105)
	noLine := &pb.Message{Conversation: &pb.Conversation{Type: proto.Int32(0), Target: proto.String("b")},
		FromUser: proto.String("a"), Content: &pb.MessageContent{Type: proto.Int32(1)}}
	noLineBytes, _ := proto.MarshalOptions{AllowPartial: true}.Marshal(noLine)
	for _, k := range []struct {
		name  string
		topic string
		body  []byte
		want  wire.ErrorCode
	}{
		{"not in the group", wire.TopicSendMessage, marshal(t, textMessage(wire.ConvGroup, "g", "x")), wire.CodeNotInGroup},
		{"unknown group", wire.TopicSendMessage, marshal(t, textMessage(wire.ConvGroup, "nog", "x")), wire.CodeNotExist},
		{"unknown user", wire.TopicSendMessage, marshal(t, textMessage(wire.ConvPrivate, "ghost", "x")), wire.CodeNotExist},
		{"not in the chatroom", wire.TopicSendMessage, marshal(t, textMessage(wire.ConvChatroom, "r", "x")), wire.CodeServerError},
		{"channel", wire.TopicSendMessage, marshal(t, textMessage(wire.ConvChannel, "ch", "x")), wire.CodeInvalidParameter},
		{"content type 80", wire.TopicSendMessage, marshal(t, forbidden), wire.CodeInvalidParameter},
		{"content type 105", wire.TopicSendMessage, marshal(t, notify), wire.CodeInvalidParameter},
		{"required field missing", wire.TopicSendMessage, noLineBytes, wire.CodeInvalidData},
		{"not protobuf", wire.TopicSendMessage, []byte{0xff, 0xff, 0xff}, wire.CodeInvalidData},
		{"unknown topic", "NOPE", marshal(t, textMessage(0, "b", "x")), wire.CodeNotImplement},
		{"not served", wire.TopicGetUserSetting, []byte{8, 1}, wire.CodeNotImplement},
	} {
		if code, res := a.puback(a.request(k.topic, k.body)); code != k.want || res != nil {
			t.Errorf("%s: code %s %x, want %s", k.name, code, res, k.want)
		}
	}

	// A body that does not decrypt, an empty one: 2. QoS 0 is ignored.
	a.pid++
	raw, _ := wire.Publish{QoS: 1, Topic: wire.TopicSendMessage, PacketID: a.pid, Payload: []byte("0123456789abcdef")}.Append(nil)
	a.raw(raw)
	if code, _ := a.puback(a.pid); code != wire.CodeInvalidData {
		t.Errorf("undecryptable: %s", code)
	}
	a.pid++
	raw, _ = wire.Publish{QoS: 1, Topic: wire.TopicSendMessage, PacketID: a.pid}.Append(nil)
	a.raw(raw)
	if code, _ := a.puback(a.pid); code != wire.CodeInvalidData {
		t.Errorf("empty: %s", code)
	}
	body := wire.RootCipher().Encrypt(wire.HourNow(), marshal(t, textMessage(0, "b", "qos0")))
	raw, _ = wire.Publish{Topic: wire.TopicSendMessage, Payload: body}.Append(nil)
	a.raw(raw)
	a.write(wire.Pingreq{})
	if p, err := a.read(2 * time.Second); err != nil || p != (wire.Pingresp{}) {
		t.Fatalf("after a QoS 0 MS: %+v %v", p, err)
	}
	if n := tg.Counter(t, "imbench_target_wildfire_publish_errors_total"); n != 13 {
		t.Errorf("errors counted %v, want 13", n)
	}
}

func marshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A leaky bucket of RateLimit per 5 s per clientId and topic: of 30
// pipelined MS with a limit of 10, the first 10 pass and the rest are 250
// (one more may leak in if the machine is slow); MP is exempt.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{RateLimit: 10})
	a, _ := online(t, tg, "a")
	getToken(t, tg, "b", "c-b", wire.PlatformLinux)
	body := marshal(t, textMessage(wire.ConvPrivate, "b", "x"))
	var buf []byte
	for i := 1; i <= 30; i++ {
		buf, _ = wire.AppendRequest(buf, wire.TopicSendMessage, uint16(i), a.cr.cipher, wire.HourNow(), body)
	}
	pull := marshal(t, &pb.PullMessageRequest{Id: proto.Int64(0), Type: proto.Int32(0)})
	for i := 31; i <= 60; i++ {
		buf, _ = wire.AppendRequest(buf, wire.TopicPullMessage, uint16(i), a.cr.cipher, wire.HourNow(), pull)
	}
	start := time.Now()
	a.raw(buf)
	ok, limited := 0, 0
	for i := 1; i <= 30; i++ {
		code, _ := a.puback(uint16(i))
		switch {
		case code == wire.CodeSuccess && limited == 0:
			ok++
		case code == wire.CodeOverFrequency:
			limited++
		default:
			t.Fatalf("MS %d: code %s after %d ok, %d limited", i, code, ok, limited)
		}
	}
	if ok < 10 || ok > 11 || (ok == 11 && time.Since(start) < 400*time.Millisecond) {
		t.Fatalf("%d accepted, %d limited in %v", ok, limited, time.Since(start))
	}
	for i := 31; i <= 60; i++ {
		if code, _ := a.puback(uint16(i)); code != wire.CodeSuccess {
			t.Fatalf("MP %d: %s", i, code)
		}
	}
}
