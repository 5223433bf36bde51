package wukongim

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// samplePackets are one of each packet, with every optional field set so a
// layout that drops a field shows up in the round trip.
func samplePackets(setting uint8) []Packet {
	return []Packet{
		Connect{Version: 4, DeviceFlag: DeviceWeb, DeviceID: "d-1", UID: "alice", Token: "tok",
			ClientTimestamp: -5, ClientKey: "a2V5"},
		Connack{Flags: FlagHasServerVersion, ServerVersion: 5, TimeDiff: 1 << 40, ReasonCode: ReasonSuccess,
			ServerKey: "c2s=", Salt: "0123456789abcdef", NodeID: 1<<63 + 9},
		Connack{TimeDiff: -1, ReasonCode: ReasonAuthFail},
		Send{Flags: FlagRedDot | FlagNoPersist, Setting: setting, ClientSeq: 1<<32 - 1, ClientMsgNo: "cmn",
			StreamNo: "sn-1", ChannelID: "g1", ChannelType: ChannelGroup, Expire: 60, MsgKey: "mk",
			Topic: "tp", Payload: []byte("payload \x00\xff")},
		Sendack{Flags: FlagSyncOnce, MessageID: -1, ClientSeq: 3, MessageSeq: 4, ReasonCode: ReasonPayloadDecodeError},
		Recv{Flags: FlagDUP | FlagRedDot, Setting: setting, MsgKey: "mk", FromUID: "bob", ChannelID: "g1",
			ChannelType: ChannelLive, Expire: 7, ClientMsgNo: "cmn", StreamFlag: StreamEnd, StreamNo: "sn-1",
			StreamID: 1 << 50, MessageID: 1 << 62, MessageSeq: 1 << 31, Timestamp: -7, Topic: "tp",
			Payload: []byte("p")},
		Recvack{Flags: FlagNoPersist, MessageID: 42, MessageSeq: 43},
		Ping{},
		Pong{},
		Disconnect{ReasonCode: ReasonConnectKick, Reason: KickReason},
		Sub{Setting: setting, SubNo: "s1", ChannelID: "live", ChannelType: ChannelLive, Action: ActionUnsubscribe, Param: "{}"},
		Suback{SubNo: "s1", ChannelID: "live", ChannelType: ChannelLive, Action: ActionSubscribe, ReasonCode: ReasonSuccess},
		Event{ID: "e1", Type: "stream.delta", Timestamp: 1700000000000, Data: []byte(`{"x":1}`)},
	}
}

// expect clears what a layout does not carry at version v, giving the value
// a round trip must return.
func expect(p Packet, v uint8) Packet {
	switch m := p.(type) {
	case Connack:
		if m.Version(v) < 4 {
			m.NodeID = 0
		}
		if m.Flags&FlagHasServerVersion == 0 {
			m.ServerVersion = 0
		}
		return m
	case Send:
		if !streamFields(v, m.Setting) {
			m.StreamNo = ""
		}
		if v < 3 {
			m.Expire = 0
		}
		if m.Setting&SettingTopic == 0 {
			m.Topic = ""
		}
		return m
	case Recv:
		if !streamFields(v, m.Setting) {
			m.StreamFlag, m.StreamNo, m.StreamID = 0, "", 0
		}
		if v < 3 {
			m.Expire = 0
		}
		if m.Setting&SettingTopic == 0 {
			m.Topic = ""
		}
		return m
	}
	return p
}

func TestRoundTrip(t *testing.T) {
	settings := []uint8{0, SettingStream, SettingTopic, SettingStream | SettingTopic | SettingReceipt}
	for _, v := range []uint8{1, 2, 3, 4, 5, 6} {
		for _, setting := range settings {
			var stream []byte
			var want []Packet
			for _, p := range samplePackets(setting) {
				var err error
				stream, err = p.Append(stream, v)
				if err != nil {
					t.Fatalf("v%d %T: %v", v, p, err)
				}
				want = append(want, expect(p, v))
			}
			// Decode the concatenation as a stream, as a connection sees it.
			for i := 0; len(stream) > 0; i++ {
				p, n, err := DecodeFrame(stream, v)
				if err != nil || n == 0 {
					t.Fatalf("v%d setting %#x packet %d: n=%d %v", v, setting, i, n, err)
				}
				if !reflect.DeepEqual(p, want[i]) {
					t.Fatalf("v%d setting %#x\n got %+v\nwant %+v", v, setting, p, want[i])
				}
				stream = stream[n:]
			}
		}
	}
}

// Stream fields are on the wire for 2 <= v < 5 only, topic whenever set.
func TestVersionedLayouts(t *testing.T) {
	base := Send{ClientMsgNo: "c", ChannelID: "u", ChannelType: 1, Payload: []byte("p")}
	size := func(m Send, v uint8) int {
		b, err := m.Append(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	stream := base
	stream.Setting, stream.StreamNo = SettingStream, "abc"
	topic := base
	topic.Setting, topic.Topic = SettingTopic, "abc"
	for v, want := range map[uint8][3]int{
		2: {0, 5, 5}, 3: {4, 9, 9}, 4: {4, 9, 9}, 5: {4, 4, 9},
	} {
		got := [3]int{size(base, v) - size(base, 2), size(stream, v) - size(base, 2), size(topic, v) - size(base, 2)}
		if got != want {
			t.Errorf("v%d SEND size deltas (base, stream, topic) %v, want %v", v, got, want)
		}
	}
	// CONNACK: nodeId follows the negotiated version.
	c := Connack{Flags: FlagHasServerVersion, ServerVersion: 4, NodeID: 1001}
	b, _ := c.Append(nil, 4)
	_, flags, body, _, _ := SplitFrame(b)
	got, err := DecodeConnack(flags, body, 5) // a v5 client talking to a v4 server
	if err != nil || got.NodeID != 1001 || got.Version(5) != 4 {
		t.Fatalf("v5 client, v4 server: %+v %v", got, err)
	}
	c = Connack{NodeID: 1001} // a v3 client: no flag, no nodeId
	b, _ = c.Append(nil, 3)
	if len(b) != 2+8+1+2+2 {
		t.Fatalf("v3 CONNACK is %d bytes", len(b))
	}
	_, flags, body, _, _ = SplitFrame(b)
	if got, err := DecodeConnack(flags, body, 3); err != nil || got.NodeID != 0 {
		t.Fatalf("v3 CONNACK: %+v %v", got, err)
	}
}

func TestNegotiate(t *testing.T) {
	for client, want := range map[uint8][2]uint8{
		3: {3, 0}, 4: {4, FlagHasServerVersion}, 5: {5, FlagHasServerVersion}, 7: {5, FlagHasServerVersion},
	} {
		v, f := Negotiate(client)
		if [2]uint8{v, f} != want {
			t.Errorf("Negotiate(%d) = %d, %#x; want %v", client, v, f, want)
		}
	}
}

// Every strict prefix of every body is refused with ErrShort, never a panic.
func TestTruncatedBodies(t *testing.T) {
	for _, v := range []uint8{3, 4, 5} {
		for _, p := range samplePackets(SettingStream | SettingTopic) {
			if p.PacketType() == TypePing || p.PacketType() == TypePong {
				continue
			}
			b, err := p.Append(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			typ, flags, body, _, err := SplitFrame(b)
			if err != nil {
				t.Fatal(err)
			}
			minLen := len(body)
			switch m := p.(type) { // the rest-of-body field may be cut to nothing
			case Send:
				minLen -= len(m.Payload)
			case Recv:
				minLen -= len(m.Payload)
			case Event:
				minLen -= len(m.Data)
			}
			for i := 0; i < minLen; i++ {
				if _, err := Decode(typ, flags, body[:i], v); !errors.Is(err, ErrShort) {
					t.Fatalf("v%d %s body[:%d]: %v", v, typ, i, err)
				}
			}
		}
	}
}

func TestNegativeStringLength(t *testing.T) {
	body := []byte{12, 0x80, 0x00, 'x'} // DISCONNECT, reason length -32768
	if _, err := DecodeDisconnect(0, body, 5); !errors.Is(err, ErrBadString) {
		t.Fatalf("got %v", err)
	}
	body = []byte{12, 0xff, 0xff}
	if _, err := DecodeDisconnect(0, body, 5); !errors.Is(err, ErrBadString) {
		t.Fatalf("got %v", err)
	}
	body = []byte{12, 0x7f, 0xff, 'x'} // 32767 claimed, 1 present
	if _, err := DecodeDisconnect(0, body, 5); !errors.Is(err, ErrShort) {
		t.Fatalf("got %v", err)
	}
}

func TestEncoderLimits(t *testing.T) {
	long := strings.Repeat("x", MaxStringLen+1)
	ok := strings.Repeat("x", MaxStringLen)
	dst := []byte("keep")
	cases := []struct {
		p    Packet
		want error
	}{
		{Connect{UID: long}, ErrStringTooLong},
		{Connack{Salt: long}, ErrStringTooLong},
		{Send{ChannelID: long}, ErrStringTooLong},
		{Send{Setting: SettingTopic, Topic: long}, ErrStringTooLong},
		{Send{Payload: make([]byte, MaxPayloadLen+1)}, ErrPayloadTooLarge},
		{Recv{FromUID: long}, ErrStringTooLong},
		{Recv{Payload: make([]byte, MaxRemainingLength)}, ErrFrameTooLarge},
		{Disconnect{Reason: long}, ErrStringTooLong},
		{Sub{Param: long}, ErrStringTooLong},
		{Suback{SubNo: long}, ErrStringTooLong},
		{Event{Type: long}, ErrStringTooLong},
		{Event{Data: make([]byte, MaxRemainingLength)}, ErrFrameTooLarge},
	}
	for _, c := range cases {
		got, err := c.p.Append(dst, 5)
		if !errors.Is(err, c.want) {
			t.Errorf("%T: err %v, want %v", c.p, err, c.want)
		}
		if string(got) != "keep" {
			t.Errorf("%T: dst changed on error", c.p)
		}
	}
	// The limits themselves pass and decode back.
	b, err := Send{ChannelID: ok, Payload: make([]byte, MaxPayloadLen)}.Append(nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	if p, _, err := DecodeFrame(b, 5); err != nil || p.(Send).ChannelID != ok {
		t.Fatalf("max sizes: %v", err)
	}
	b, err = Recv{Payload: make([]byte, MaxRemainingLength-1-2-2-2-1-4-2-8-4-4)}.Append(nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, n, err := DecodeFrame(b, 5); err != nil || n != len(b) {
		t.Fatalf("1 MiB RECV: %v", err)
	}
}

func TestSplitFrame(t *testing.T) {
	frames := [][]byte{}
	var stream []byte
	for _, p := range samplePackets(SettingTopic) {
		b, err := p.Append(nil, 5)
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, b)
		stream = append(stream, b...)
	}
	big, _ := Recv{Payload: make([]byte, 300000)}.Append(nil, 5) // a 3-byte length
	frames = append(frames, big)
	stream = append(stream, big...)

	// Fed one byte at a time, the splitter waits, then cuts exact frames.
	var buf []byte
	i := 0
	for _, c := range stream {
		buf = append(buf, c)
		for {
			_, _, body, n, err := SplitFrame(buf)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			if !bytes.Equal(buf[:n], frames[i]) || !bytes.Equal(body, frames[i][n-len(body):]) {
				t.Fatalf("frame %d differs", i)
			}
			if cap(body) != len(body) {
				t.Fatalf("frame %d body capacity not clipped", i)
			}
			buf = buf[n:]
			i++
		}
	}
	if i != len(frames) || len(buf) != 0 {
		t.Fatalf("split %d of %d frames, %d bytes left", i, len(frames), len(buf))
	}
}

func TestSplitFrameErrors(t *testing.T) {
	cases := []struct {
		in   []byte
		n    int
		want error
	}{
		{nil, 0, nil},
		{[]byte{0x70}, 1, nil},
		{[]byte{0x80, 0x70}, 1, nil},
		{[]byte{0x7f}, 1, nil}, // PING with flag bits set still is one byte
		{[]byte{0x00, 0x00}, 0, ErrUnknownType},
		{[]byte{0xd0, 0x00}, 0, ErrUnknownType},
		{[]byte{0xf3}, 0, ErrUnknownType},
		{[]byte{0x30}, 0, nil},
		{[]byte{0x30, 0x80}, 0, nil},
		{[]byte{0x30, 0x00}, 2, nil}, // an empty body is framed; decoders then say ErrShort
		{[]byte{0x30, 0x80, 0x80, 0x80, 0x00}, 5, nil},
		{[]byte{0x30, 0x80, 0x80, 0x80, 0x80}, 0, ErrBadLength},
		{[]byte{0x30, 0x80, 0x80, 0x80, 0x80, 0x01}, 0, ErrBadLength},
		{[]byte{0x30, 0x81, 0x80, 0x40}, 0, ErrFrameTooLarge},       // 1 MiB + 1
		{[]byte{0x30, 0xff, 0xff, 0xff, 0x7f}, 0, ErrFrameTooLarge}, // 256 MiB - 1
		{[]byte{0x30, 0x80, 0x80, 0xc1}, 0, ErrFrameTooLarge},       // known too large before the 4th byte
		{[]byte{0x30, 0x80, 0x80, 0xc0}, 0, nil},                    // 1 MiB so far: a 4th byte 00 would be legal
		{[]byte{0x30, 0x80, 0x80, 0x40}, 0, nil},                    // exactly 1 MiB: wait for it
	}
	for _, c := range cases {
		_, _, _, n, err := SplitFrame(c.in)
		if n != c.n || !errors.Is(err, c.want) {
			t.Errorf("SplitFrame(%x) = n %d err %v; want %d %v", c.in, n, err, c.n, c.want)
		}
	}
	if _, err := AppendHeader(nil, 0, 0, 1); !errors.Is(err, ErrUnknownType) {
		t.Errorf("AppendHeader type 0: %v", err)
	}
	if _, err := AppendHeader(nil, TypeSend, 0, MaxRemainingLength+1); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("AppendHeader too large: %v", err)
	}
	for n, want := range map[int]string{0: "3000", 99: "3063", 127: "307f", 128: "308001", 220: "30dc01",
		16383: "30ff7f", 16384: "30808001", MaxRemainingLength: "30808040"} {
		b, err := AppendHeader(nil, TypeSend, 0, n)
		if err != nil || hex.EncodeToString(b) != want {
			t.Errorf("header(%d) = %s, want %s", n, hex.EncodeToString(b), want)
		}
	}
	if _, err := Decode(13, 0, nil, 5); !errors.Is(err, ErrUnknownType) {
		t.Errorf("Decode(13): %v", err)
	}
}

func TestReasonAndTypeNames(t *testing.T) {
	for r, want := range map[ReasonCode]string{ReasonUnknown: "Unknown", ReasonSuccess: "Success",
		ReasonAuthFail: "AuthFail", ReasonPayloadDecodeError: "PayloadDecodeError", ReasonConnectKick: "ConnectKick",
		ReasonSendBan: "SendBan", 26: "Reason(26)"} {
		if r.String() != want {
			t.Errorf("%d: %s, want %s", uint8(r), r, want)
		}
	}
	if TypeRecvack.String() != "RECVACK" || PacketType(0).String() != "UNKNOWN(0)" || TypeEvent.String() != "EVENT" {
		t.Error("packet type names")
	}
	if PingByte != 0x70 || PongByte != 0x80 {
		t.Error("ping/pong bytes")
	}
}

func TestAppendAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	s := Send{Flags: FlagRedDot, ClientSeq: 1, ClientMsgNo: "cmn-1", ChannelID: "u2", ChannelType: 1,
		MsgKey: "beb67434fdeb52f35e1ca605b74912ef", Payload: []byte("Xh10EPPP5rWxvUSjeRjAuIOvBiFp/tITLUMwANS1ecI=")}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { _, _ = s.Append(buf[:0], 5) }); n != 0 {
		t.Errorf("Send.Append allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = s.Append(nil, 5) }); n != 1 {
		t.Errorf("Send.Append(nil) allocates %v times, want 1", n)
	}
	frame, _ := s.Append(nil, 5)
	if n := testing.AllocsPerRun(100, func() { _, _, _, _, _ = SplitFrame(frame) }); n != 0 {
		t.Errorf("SplitFrame allocates %v times", n)
	}
	ack, _ := Recvack{MessageID: 1, MessageSeq: 2}.Append(nil, 5)
	_, fl, body, _, _ := SplitFrame(ack)
	if n := testing.AllocsPerRun(100, func() { _, _ = DecodeRecvack(fl, body, 5) }); n != 0 {
		t.Errorf("DecodeRecvack allocates %v times", n)
	}
}
