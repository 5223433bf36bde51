package wildfire

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/wire/wildfire/pb"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// What the real server sent (wildfire.md §14), decoded and re-encoded byte
// for byte.

func TestServerConnack(t *testing.T) {
	wire := unhex(t, "20110000"+"080010001800200038c1d5deada034")
	p, n, err := DecodeFrame(wire)
	if err != nil || n != len(wire) {
		t.Fatalf("n=%d %v", n, err)
	}
	c := p.(Connack)
	if c.SessionPresent || c.ReturnCode != ConnackAccepted {
		t.Fatalf("%+v", c)
	}
	ack, err := c.Ack()
	if err != nil {
		t.Fatal(err)
	}
	if ack.MsgHead == nil || ack.GetMsgHead() != 0 || ack.SettingHead == nil || ack.GetServerTime() != 1795392252609 || ack.NodeAddr != nil {
		t.Errorf("ack %v", ack)
	}
	// The server sets every head, 0 included: the re-encoding must too.
	again, err := NewConnack(ConnackAccepted, &pb.ConnectAckPayload{MsgHead: proto.Int64(0),
		FriendHead: proto.Int64(0), FriendRqHead: proto.Int64(0), SettingHead: proto.Int64(0),
		ServerTime: proto.Int64(1795392252609)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := again.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	equalHex(t, "CONNACK", out, wire)

	// Refusals carry no payload: session not exist, bad password, version.
	for _, code := range []ConnectReturnCode{ConnackSessionNotExist, ConnackBadUsernameOrPassword, ConnackUnacceptableProtocolVersion} {
		c, err := NewConnack(code, nil)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := c.Append(nil)
		if !bytes.Equal(out, []byte{0x20, 0x02, 0x00, byte(code)}) {
			t.Errorf("%s: %x", code, out)
		}
		back, _, err := DecodeFrame(out)
		if err != nil || back.(Connack).ReturnCode != code || back.(Connack).Payload != nil {
			t.Errorf("%s: %+v %v", code, back, err)
		}
	}
	if ConnackSessionNotExist.String() != "SessionNotExist" || ConnectReturnCode(9).String() != "ConnectReturnCode(9)" {
		t.Error("return code names")
	}
}

func TestServerNotify(t *testing.T) {
	payload := unhex(t, "080010818082c79eaac39508")
	frame, err := AppendPush(nil, TopicNotifyMessage, payload)
	if err != nil {
		t.Fatal(err)
	}
	// 30 <len> 00 02 'M' 'N' payload: QoS 0, no packet id.
	equalHex(t, "MN", frame, append(unhex(t, "3010"+"00024d4e"), payload...))
	p, _, err := DecodeFrame(frame)
	if err != nil {
		t.Fatal(err)
	}
	pub := p.(Publish)
	var n pb.NotifyMessage
	if err := proto.Unmarshal(pub.Payload, &n); err != nil {
		t.Fatal(err)
	}
	if pub.QoS != 0 || pub.PacketID != 0 || n.GetType() != PullNormal || n.GetHead() != 588578821752520705 {
		t.Errorf("%+v %v", pub, &n)
	}
	again, _ := proto.Marshal(&n)
	equalHex(t, "NotifyMessage", again, payload)

	// The kick notice: ROFL with payload "1" (§14).
	frame, _ = AppendPush(nil, TopicNotifyOffline, []byte("1"))
	equalHex(t, "ROFL", frame, unhex(t, "3007"+"0004"+hex.EncodeToString([]byte("ROFL"))+"31"))
}

func TestServerPubackCodes(t *testing.T) {
	// Errors carry the code alone: rate limit, unknown topic, bad payload,
	// not in group (§5.4, §14).
	for _, code := range []ErrorCode{CodeOverFrequency, CodeNotImplement, CodeInvalidData, CodeNotInGroup, CodeInvalidParameter} {
		wire := []byte{0x40, 0x03, 0x12, 0x34, byte(code)}
		p, _, err := DecodeFrame(wire)
		if err != nil {
			t.Fatal(err)
		}
		a := p.(Puback)
		if a.PacketID != 0x1234 || a.Code != code || a.Data != nil {
			t.Errorf("%x: %+v", wire, a)
		}
		if res, err := a.Result(nil, 0); res != nil || err != nil {
			t.Errorf("no data: %x %v", res, err)
		}
		out, err := AppendResponse(nil, 0x1234, code, nil, 0, nil)
		if err != nil || !bytes.Equal(out, wire) {
			t.Errorf("%s: %x %v", code, out, err)
		}
	}
	if CodeOverFrequency.String() != "OverFrequency" || ErrorCode(13).String() != "ErrorCode(13)" {
		t.Error("code names")
	}
	if !CodeSuccessGzipped.OK() || CodeOverFrequency.OK() {
		t.Error("OK()")
	}
}

func TestServerKeepAliveAndDisconnect(t *testing.T) {
	cases := []struct {
		p    Packet
		wire string
	}{{Pingreq{}, "c000"}, {Pingresp{}, "d000"}, {Disconnect{}, "e000"}}
	for _, k := range cases {
		out, err := k.p.Append(nil)
		if err != nil || hex.EncodeToString(out) != k.wire {
			t.Errorf("%s: %x %v", k.p.PacketType(), out, err)
		}
		back, n, err := DecodeFrame(out)
		if err != nil || n != 2 || back != k.p {
			t.Errorf("%s: %v %d %v", k.wire, back, n, err)
		}
	}
	// The server's decoder refuses DISCONNECT with DUP or RETAIN (§5.7, §14).
	for _, wire := range []string{"e800", "e100", "c200", "d100"} {
		if _, _, err := DecodeFrame(unhex(t, wire)); !errors.Is(err, ErrBadFlags) {
			t.Errorf("%s: %v", wire, err)
		}
	}
	if _, _, err := DecodeFrame(unhex(t, "e00100")); !errors.Is(err, ErrTrailing) {
		t.Errorf("DISCONNECT with a body: %v", err)
	}
}
