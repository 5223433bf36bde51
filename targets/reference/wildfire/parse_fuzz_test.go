package wildfire

import (
	"bufio"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// The front end reads the few fields it needs out of requests with its own
// protobuf walkers (send.go, pull.go), not the generated code; these fuzz
// targets hold each walker to google.golang.org/protobuf decoding the same
// bytes as the generated message, required fields checked as the real
// server's Java classes check them.

// pbVectors are the wire package's protobuf vectors (gen_vectors.py), when
// the checkout has them.
func pbVectors(f *testing.F) [][]byte {
	var out [][]byte
	fh, err := os.Open("../../../wire/wildfire/testdata/vectors.txt")
	if err != nil {
		return nil
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		name, val, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if strings.HasPrefix(name, "PB_") {
			if b, err := hex.DecodeString(strings.TrimSpace(val)); err == nil {
				out = append(out, b)
			}
		}
	}
	return out
}

func mustMarshal(f *testing.F, m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// count is how many times field num appears with wire type typ at the top
// level of b (which must parse).
func count(b []byte, num protowire.Number, typ protowire.Type) int {
	c := 0
	for len(b) > 0 {
		n, t, k := protowire.ConsumeField(b)
		if k < 0 {
			return c
		}
		if n == num && t == typ {
			c++
		}
		b = b[k:]
	}
	return c
}

// bigField reports a tag numbering its field above protowire.MaxValidNumber
// (2^29-1) anywhere in b, nested messages included as far as they parse:
// google.golang.org/protobuf refuses one, the walkers (like the real
// server's Java decoder, which reads a tag as 32 bits) skip it as an
// unknown field.
func bigField(b []byte) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		if num > protowire.MaxValidNumber {
			return true
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return false
		}
		if typ == protowire.BytesType {
			if v, _ := protowire.ConsumeBytes(b[n:]); bigField(v) {
				return true
			}
		}
		b = b[n+m:]
	}
	return false
}

// FuzzParseMessage reads any MS body: no panic; what parseMessage takes
// (but for a field number over 2^29-1) decodes as a pb.Message with the same conversation and content type; what
// it refuses does not decode, unless the conversation or content field is
// repeated (protobuf merges the repeats, the walker keeps the last); and the
// payload stored from it decodes with the sender and the message id.
func FuzzParseMessage(f *testing.F) {
	for _, b := range pbVectors(f) {
		f.Add(b, int64(1))
	}
	msg := &pb.Message{Conversation: &pb.Conversation{Type: proto.Int32(0), Target: proto.String("u2"), Line: proto.Int32(0)},
		FromUser: proto.String("u1"), Content: &pb.MessageContent{Type: proto.Int32(1), SearchableContent: proto.String("hi")}}
	f.Add(mustMarshal(f, msg), int64(588578821752520705))
	msg.Conversation.Type = proto.Int32(2)
	msg.ToUser, msg.To = proto.String("x"), []string{"a", "b"}
	f.Add(mustMarshal(f, msg), int64(-1))
	f.Add([]byte{0x0a, 0x06, 0x08, 0x00, 0x12, 0x00, 0x18, 0x00, 0x12, 0x00, 0x1a, 0x02, 0x08, 0x01}, int64(0))
	f.Add([]byte{0x0a, 0x02, 0x08, 0x00, 0x0a, 0x04, 0x12, 0x00, 0x18, 0x00, 0x12, 0x00, 0x1a, 0x02, 0x08, 0x01}, int64(0))
	f.Fuzz(func(t *testing.T, b []byte, uid int64) {
		r, ok := parseMessage(b)
		var m pb.Message
		err := proto.Unmarshal(b, &m)
		if !ok {
			if err == nil && count(b, 1, protowire.BytesType) < 2 && count(b, 3, protowire.BytesType) < 2 {
				t.Fatalf("refused a whole Message: %v", &m)
			}
			return
		}
		if err != nil {
			if bigField(b) {
				return
			}
			t.Fatalf("took what protobuf refuses (%v): %+v", err, r)
		}
		if r.convType != m.GetConversation().GetType() || r.target != m.GetConversation().GetTarget() ||
			r.contentType != m.GetContent().GetType() {
			t.Fatalf("walker %d %q %d, protobuf %v", r.convType, r.target, r.contentType, &m)
		}
		var conv pb.Conversation
		if err := proto.Unmarshal(r.conv, &conv); err != nil || conv.GetType() != r.convType || conv.GetTarget() != r.target {
			t.Fatalf("conversation bytes %x: %v %v", r.conv, &conv, err)
		}
		if ct, ok := fieldVarint(r.content, 1); !ok || ct != r.contentType {
			t.Fatalf("content bytes %x: %d %v", r.content, ct, ok)
		}
		s := encodeStored(&r, "sender", uid)
		if [3]byte(s[:3]) != payloadMagic {
			t.Fatalf("stored %x", s)
		}
		var sm pb.Message
		if err := proto.Unmarshal(s[3:], &sm); err != nil || sm.GetFromUser() != "sender" || sm.GetMessageId() != uid ||
			!proto.Equal(sm.GetConversation(), &conv) || sm.GetContent().GetType() != r.contentType {
			t.Fatalf("stored message: %v %v", &sm, err)
		}
	})
}

// FuzzParsePull reads any MP body: the walker takes exactly what decodes as
// a pb.PullMessageRequest (id and type required), with the same values, and
// besides only bodies with a field number over 2^29-1.
func FuzzParsePull(f *testing.F) {
	f.Add(mustMarshal(f, &pb.PullMessageRequest{Id: proto.Int64(0), Type: proto.Int32(wire.PullNormal)}))
	f.Add(mustMarshal(f, &pb.PullMessageRequest{Id: proto.Int64(588578821752520705), Type: proto.Int32(wire.PullChatroom), Delay: proto.Int64(3)}))
	f.Add(mustMarshal(f, &pb.PullMessageRequest{Id: proto.Int64(-1), Type: proto.Int32(-1)}))
	f.Add([]byte{0x08, 0x01})
	f.Add([]byte{0x08, 0x01, 0x10, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x0b, 0x0c})
	f.Fuzz(func(t *testing.T, b []byte) {
		id, typ, ok := parsePull(b)
		var m pb.PullMessageRequest
		err := proto.Unmarshal(b, &m)
		if ok != (err == nil) && !(ok && bigField(b)) {
			t.Fatalf("walker %v, protobuf %v (%v)", ok, err, &m)
		}
		if ok && err == nil && (id != m.GetId() || typ != int64(m.GetType())) {
			t.Fatalf("walker %d %d, protobuf %v", id, typ, &m)
		}
	})
}

// FuzzField reads any CRJ/CRQ body (an IDBuf) and any varint field: the
// walkers find exactly what protobuf decodes as an IDBuf and as a
// GeneralResult (one required field 1 each), and besides only bodies with a
// field number over 2^29-1.
func FuzzField(f *testing.F) {
	f.Add(mustMarshal(f, &pb.IDBuf{Id: proto.String("chatroom-1")}))
	f.Add(mustMarshal(f, &pb.GeneralResult{ErrorCode: proto.Int32(-5)}))
	f.Add([]byte{0x0a, 0x01, 'a', 0x0a, 0x01, 'b', 0x08, 0x07})
	f.Add([]byte{0x0a, 0x05, 'a'})
	f.Fuzz(func(t *testing.T, b []byte) {
		big := bigField(b)
		s, ok := fieldString(b, 1)
		var id pb.IDBuf
		err := proto.Unmarshal(b, &id)
		if (ok != (err == nil) && !(ok && big)) || (ok && err == nil && s != id.GetId()) {
			t.Fatalf("string walker %q %v, protobuf %v %v", s, ok, &id, err)
		}
		v, ok := fieldVarint(b, 1)
		var g pb.GeneralResult
		err = proto.Unmarshal(b, &g)
		if (ok != (err == nil) && !(ok && big)) || (ok && err == nil && v != g.GetErrorCode()) {
			t.Fatalf("varint walker %d %v, protobuf %v %v", v, ok, &g, err)
		}
	})
}
