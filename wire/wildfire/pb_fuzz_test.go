package wildfire

import (
	"bytes"
	"compress/gzip"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/imbench/imbench/wire/wildfire/pb"
)

// pbTypes are every message of the protocol's .proto: what either side
// decodes out of a PUBLISH, a PUBACK result or the HTTP short link.
func pbTypes(f *testing.F) []protoreflect.MessageType {
	var out []protoreflect.MessageType
	msgs := pb.File_wildfire_proto.Messages()
	for i := 0; i < msgs.Len(); i++ {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(msgs.Get(i).FullName())
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, mt)
	}
	return out
}

// FuzzProtobuf decodes any payload as every message of the protocol,
// required fields checked as the real server's Java classes check them: no
// panic; whatever decodes marshals (deterministically) to what decodes back
// equal, in proto.Size bytes; and what fails only for a missing required
// field decodes when partial messages are allowed.
func FuzzProtobuf(f *testing.F) {
	types := pbTypes(f)
	v := loadVectors(f)
	for _, name := range []string{"PB_MESSAGE_HI", "PB_PULL_REQUEST", "PB_MESSAGE_FULL", "PB_PULL_RESULT", "PB_CONNECT_ACK",
		"PB_NOTIFY", "PB_CREATE_GROUP", "PB_HTTP_WRAPPER", "PB_IDBUF"} {
		f.Add(v.hex(f, name))
	}
	f.Add([]byte{0x0a, 0x00})             // a Message with an empty conversation
	f.Add([]byte{0x0b, 0x0c})             // an empty group
	f.Add([]byte{0x08, 0xff, 0xff, 0xff}) // a cut varint
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, mt := range types {
			m := mt.New().Interface()
			if err := proto.Unmarshal(b, m); err != nil {
				p := mt.New().Interface()
				if perr := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(b, p); perr == nil && proto.CheckInitialized(p) == nil {
					t.Fatalf("%s: refused (%v) though whole and initialized", mt.Descriptor().Name(), err)
				}
				continue
			}
			enc, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
			if err != nil {
				t.Fatalf("%s: marshal: %v", mt.Descriptor().Name(), err)
			}
			if len(enc) != proto.Size(m) {
				t.Fatalf("%s: %d bytes, Size %d", mt.Descriptor().Name(), len(enc), proto.Size(m))
			}
			back := mt.New().Interface()
			if err := proto.Unmarshal(enc, back); err != nil || !proto.Equal(back, m) {
				t.Fatalf("%s: round trip: %v", mt.Descriptor().Name(), err)
			}
		}
	})
}

// FuzzResult reads any PUBACK result as the client does: an MS result is
// 16 bytes or an error and writes back the same; a gzipped (255) result
// inflates within its limit or fails; any bytes deflate and inflate back.
func FuzzResult(f *testing.F) {
	v := loadVectors(f)
	ms := AppendSendResult(nil, v.int(f, "PUBACK_MS_UID"), v.int(f, "PUBACK_MS_TS"))
	f.Add(ms, 16)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(bytes.Repeat(v.hex(f, "PB_PULL_RESULT"), 40))
	zw.Close()
	f.Add(zb.Bytes(), 1<<20)
	f.Add(zb.Bytes(), 100)
	f.Add([]byte{0x1f, 0x8b}, 0)
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		if uid, ts, err := ParseSendResult(b); err == nil {
			if len(b) != SendResultLen || !bytes.Equal(AppendSendResult(nil, uid, ts), b) {
				t.Fatalf("%x read as %d %d", b, uid, ts)
			}
		} else if len(b) == SendResultLen {
			t.Fatalf("16 bytes refused: %v", err)
		}
		if limit < 0 {
			limit = -(limit + 1)
		}
		limit %= 4 << 20
		out, err := Gunzip(b, limit)
		if err == nil && len(out) > limit {
			t.Fatalf("%d bytes inflated over the limit of %d", len(out), limit)
		}
		if err != nil && out != nil {
			t.Fatal("output with an error")
		}
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(b)
		w.Close()
		back, err := Gunzip(z.Bytes(), len(b))
		if err != nil || !bytes.Equal(back, b) {
			t.Fatalf("round trip of %d bytes: %v", len(b), err)
		}
		if len(b) > 0 {
			if _, err := Gunzip(z.Bytes(), len(b)-1); err != ErrTooLarge {
				t.Fatalf("%d bytes under a limit of %d: %v", len(b), len(b)-1, err)
			}
		}
	})
}
