package wildfire

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/wire/wildfire/pb"
)

// benchPullPuback is an MP's answer as a group member gets it: one message
// of a 200-byte text, sealed with the session cipher.
func benchPullPuback(b *testing.B) (*Cipher, Puback, Hour) {
	c, err := NewCipher("0123456789abcdef-session-secret")
	if err != nil {
		b.Fatal(err)
	}
	res := &pb.PullMessageResult{Current: proto.Int64(78), Head: proto.Int64(78), Message: []*pb.Message{{
		Conversation: &pb.Conversation{Type: proto.Int32(ConvGroup), Target: proto.String("imb7g4"), Line: proto.Int32(0)},
		FromUser:     proto.String("imb7u123"),
		Content: &pb.MessageContent{Type: proto.Int32(1), SearchableContent: proto.String(string(bytes.Repeat([]byte{'t'}, 200))),
			PersistFlag: proto.Int32(3)},
		MessageId: proto.Int64(1 << 50), ServerTimestamp: proto.Int64(1700000000000),
	}}}
	plain, err := proto.Marshal(res)
	if err != nil {
		b.Fatal(err)
	}
	h := HourNow()
	return c, Puback{PacketID: 9, Data: c.Encrypt(h, plain)}, h
}

func BenchmarkPullResult(b *testing.B) {
	c, a, h := benchPullPuback(b)
	b.ReportAllocs()
	for b.Loop() {
		raw, err := a.Result(c, h)
		if err != nil {
			b.Fatal(err)
		}
		var res pb.PullMessageResult
		if err := proto.Unmarshal(raw, &res); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResult(b *testing.B) {
	c, a, h := benchPullPuback(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Result(c, h); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPullResultDecode(b *testing.B) {
	c, a, h := benchPullPuback(b)
	var buf []byte
	var r PullResult
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = a.AppendResult(buf[:0], c, h); err != nil {
			b.Fatal(err)
		}
		if err := r.Decode(buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendResult(b *testing.B) {
	c, a, h := benchPullPuback(b)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = a.AppendResult(buf[:0], c, h); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPullRequestMarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := proto.Marshal(&pb.PullMessageRequest{Id: proto.Int64(1 << 50), Type: proto.Int32(PullNormal)}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendPullRequest(b *testing.B) {
	var buf [24]byte
	b.ReportAllocs()
	for b.Loop() {
		AppendPullRequest(buf[:0], 1<<50, PullNormal)
	}
}
