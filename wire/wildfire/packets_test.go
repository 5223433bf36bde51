package wildfire

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// samplePackets are one of each packet with every optional field set, so a
// layout that drops a field shows up in the round trip.
func samplePackets() []Packet {
	return []Packet{
		NewConnect("c_u1", "u1", []byte{0, 1, 2, 0xff}, 60),
		Connect{ProtocolName: "MQTT", Level: LevelWF2, Flags: 0xFE | ConnectFlagReserved, KeepAlive: 65535,
			ClientID: "cid", WillTopic: "wt", WillMessage: []byte("wm"), Username: "user",
			Password: []byte("pw"), Signature: []byte("sig")},
		Connect{ProtocolName: "MQIsdp", Level: LevelMQTT31, ClientID: "x"},
		Connack{SessionPresent: true, ReturnCode: ConnackAccepted, Payload: []byte{0x08, 0x01}},
		Connack{ReturnCode: ConnackSessionNotExist},
		Publish{QoS: 1, Topic: TopicSendMessage, PacketID: 65535, Payload: []byte("enc")},
		Publish{Dup: true, QoS: 2, Retain: true, Topic: "t", PacketID: 1},
		Publish{Topic: TopicNotifyMessage, Payload: []byte{8, 0, 16, 1}},
		Publish{Topic: ""},
		Puback{PacketID: 1, Code: CodeSuccess, Data: bytes.Repeat([]byte{0xab}, 32)},
		Puback{PacketID: 2, Code: CodeOverFrequency},
		Pingreq{},
		Pingresp{},
		Disconnect{},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, p := range samplePackets() {
		b, err := p.Append([]byte("pre"))
		if err != nil {
			t.Fatalf("%T: %v", p, err)
		}
		if string(b[:3]) != "pre" {
			t.Fatalf("%T: prefix clobbered", p)
		}
		got, n, err := DecodeFrame(b[3:])
		if err != nil || n != len(b)-3 {
			t.Fatalf("%T: n=%d of %d, %v", p, n, len(b)-3, err)
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("round trip\n got %#v\nwant %#v", got, p)
		}
		if got.PacketType() != p.PacketType() {
			t.Errorf("%T: type %s", p, got.PacketType())
		}
	}
}

// TestTruncatedBodies cuts every sample body short: always an error, never a
// panic or a read past the body.
func TestTruncatedBodies(t *testing.T) {
	for _, p := range samplePackets() {
		b, _ := p.Append(nil)
		typ, flags, body, _, err := SplitFrame(b)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(body); i++ {
			cut := append([]byte(nil), body[:i]...)
			got, err := Decode(typ, flags, cut[:i:i])
			switch typ {
			case TypePublish, TypeConnack, TypePuback:
				// A payload of any length follows a fixed part: shorter is
				// an error only inside the fixed part.
				if err == nil && got == nil {
					t.Errorf("%s cut at %d: nil packet", typ, i)
				}
			default:
				if err == nil {
					t.Errorf("%s cut at %d of %d decoded: %+v", typ, i, len(body), got)
				}
			}
		}
	}
	cases := []struct {
		t     PacketType
		flags uint8
		body  string
		want  error
	}{
		{TypeConnect, 0, "\x00\x04MQTT\x04\xc2\x00\x3c\x00\x01c", ErrShort},        // username missing
		{TypeConnect, 0, "\x00\x04MQTT\x04\x00\x00\x3c\x00\x01cX", ErrTrailing},    // byte after the client id
		{TypeConnect, 0, "\x00\x04MQTT\x04\x01\x00\x3c\x00\x01c", ErrConnectFlags}, // reserved bit
		{TypeConnect, 0, "\x00\x04MQTT\x05\x00\x00\x3c\x00\x00", ErrLevel5},        // MQTT 5
		{TypeConnack, 0, "\x00", ErrShort},                                         //
		{TypeConnack, 0, "\x02\x00", ErrConnackFlags},                              //
		{TypePublish, 2, "\x00\x02MS\x00", ErrShort},                               // half a packet id
		{TypePublish, 2, "\x00\x02MS\x00\x00", ErrPacketID},                        //
		{TypePublish, 0, "\x00\x02M#", ErrBadTopic},                                //
		{TypePublish, 6, "\x00\x02MS\x00\x01", ErrBadFlags},                        // QoS 3
		{TypePuback, 0, "\x00\x01", ErrShort},                                      // a bare MQTT PUBACK
		{TypePuback, 0, "\x00\x00\x00", ErrPacketID},                               //
		{TypeSubscribe, 2, "\x00\x01", ErrUnsupported},                             //
		{TypePingreq, 0, "\x00", ErrTrailing},                                      //
		{0, 0, "", ErrUnknownType},                                                 //
		{15, 0, "", ErrUnknownType},                                                //
	}
	for _, k := range cases {
		if _, err := Decode(k.t, k.flags, []byte(k.body)); !errors.Is(err, k.want) {
			t.Errorf("%s %q: %v, want %v", k.t, k.body, err, k.want)
		}
	}
}

func TestEncoderLimits(t *testing.T) {
	long := strings.Repeat("x", 0x10000)
	bad := []Packet{
		Connect{ProtocolName: "MQTT", Level: 4, Flags: ConnectFlagUsername, ClientID: "c", Username: long},
		Connect{ProtocolName: "MQTT", Level: LevelMQTT5, ClientID: "c"},
		Publish{Topic: long},
		Publish{QoS: 1, Topic: "MS"},              // packet id 0
		Publish{QoS: 3, Topic: "MS", PacketID: 1}, //
		Publish{Topic: "a+b"},                     //
		Publish{Topic: "MS", Payload: make([]byte, MaxRemainingLength)},
		Puback{PacketID: 0},
		Connack{Payload: make([]byte, MaxRemainingLength)},
	}
	for _, p := range bad {
		dst := []byte("keep")
		out, err := p.Append(dst)
		if err == nil {
			t.Errorf("%T accepted", p)
		}
		if string(out) != "keep" {
			t.Errorf("%T: dst changed on error", p)
		}
	}
	// The largest body still encodes.
	if _, err := (Publish{Topic: "MS", Payload: make([]byte, MaxRemainingLength-4)}).Append(nil); err != nil {
		t.Errorf("largest PUBLISH: %v", err)
	}
	c, _ := NewCipher("")
	if _, err := AppendRequest(nil, "MS", 1, c, 1, nil); !errors.Is(err, ErrEmptyPlaintext) {
		t.Errorf("empty request: %v", err)
	}
	if _, err := AppendRequest(nil, "MS", 0, c, 1, []byte("x")); !errors.Is(err, ErrPacketID) {
		t.Errorf("request id 0: %v", err)
	}
	if _, err := AppendResponse(nil, 0, 0, c, 1, nil); !errors.Is(err, ErrPacketID) {
		t.Errorf("response id 0: %v", err)
	}
}

func TestSplitFrame(t *testing.T) {
	var stream []byte
	var want []Packet
	for _, p := range samplePackets() {
		b, _ := p.Append(nil)
		stream = append(stream, b...)
		want = append(want, p)
	}
	big, _ := (Publish{Topic: "MS", Payload: make([]byte, 300)}).Append(nil) // 2-byte length
	stream = append(stream, big...)
	want = append(want, Publish{Topic: "MS", Payload: make([]byte, 300)})

	// Feed one byte at a time: a frame comes out exactly when complete.
	var buf []byte
	var got []Packet
	for _, c := range stream {
		buf = append(buf, c)
		for {
			p, n, err := DecodeFrame(buf)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			got = append(got, p)
			buf = buf[n:]
		}
	}
	if len(buf) != 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %d packets, %d bytes left", len(got), len(buf))
	}
}

func TestSplitFrameErrors(t *testing.T) {
	cases := []struct {
		in    string
		limit int
		want  error
	}{
		{"\x00\x00", MaxRemainingLength, ErrUnknownType},
		{"\xf0\x00", MaxRemainingLength, ErrUnknownType},
		{"\xe8\x00", MaxRemainingLength, ErrBadFlags},
		{"\x36\x00", MaxRemainingLength, ErrBadFlags},
		{"\x30\xff\xff\xff\xff\x01", 1 << 30, ErrBadLength},
		{"\x30\xff\xff\xff\x7f", MaxRemainingLength, ErrFrameTooLarge},
		{"\x30\x81\x80\x10", MaxClientRemainingLength, ErrFrameTooLarge}, // 256 KiB + 1
		{"\x30\xff\xff\xff", MaxClientRemainingLength, ErrFrameTooLarge}, // proven before the last byte
	}
	for _, k := range cases {
		_, _, body, n, err := SplitFrameLimit([]byte(k.in), k.limit)
		if !errors.Is(err, k.want) || n != 0 || body != nil {
			t.Errorf("%x: n=%d %v, want %v", k.in, n, err, k.want)
		}
	}
	// Exactly the server's limit passes the header check (and waits for the body).
	if _, _, _, n, err := SplitFrameLimit([]byte("\x30\x80\x80\x10"), MaxClientRemainingLength); n != 0 || err != nil {
		t.Errorf("256 KiB: n=%d %v", n, err)
	}
	// An overlong but legal length encoding (0x80 0x00 = 0) is accepted.
	if typ, _, body, n, err := SplitFrame([]byte("\xc0\x80\x00")); typ != TypePingreq || n != 3 || len(body) != 0 || err != nil {
		t.Errorf("overlong length: %s %d %v", typ, n, err)
	}
	if _, _, _, n, err := SplitFrame(nil); n != 0 || err != nil {
		t.Error("empty input")
	}
}

func TestTypeNames(t *testing.T) {
	if TypeDisconnect.String() != "DISCONNECT" || PacketType(15).String() != "UNKNOWN(15)" {
		t.Error("type names")
	}
	if !RateLimitExempt(TopicPullMessage) || RateLimitExempt(TopicSendMessage) {
		t.Error("RateLimitExempt")
	}
}

// TestAppendAllocations: the hot paths allocate nothing into a buffer with
// room.
func TestAppendAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	c, _ := NewCipher("1b4e28ba-2fa1-11d2-883f-0016d3cca427")
	body := bytes.Repeat([]byte("m"), 100)
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(100, func() {
		buf, _ = AppendRequest(buf[:0], TopicSendMessage, 9, c, 70000, body)
	}); n != 0 {
		t.Errorf("AppendRequest: %.0f allocs", n)
	}
	if n := testing.AllocsPerRun(100, func() {
		buf, _ = AppendResponse(buf[:0], 9, CodeSuccess, c, 70000, body[:16])
	}); n != 0 {
		t.Errorf("AppendResponse: %.0f allocs", n)
	}
	p := Publish{Topic: TopicNotifyMessage, Payload: body}
	if n := testing.AllocsPerRun(100, func() { buf, _ = p.Append(buf[:0]) }); n != 0 {
		t.Errorf("Publish.Append: %.0f allocs", n)
	}
	frame, _ := AppendRequest(nil, TopicSendMessage, 9, c, 70000, body)
	if n := testing.AllocsPerRun(100, func() { _, _, _, _, _ = SplitFrame(frame) }); n != 0 {
		t.Errorf("SplitFrame: %.0f allocs", n)
	}
}
