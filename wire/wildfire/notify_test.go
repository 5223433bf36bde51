package wildfire

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/wire/wildfire/pb"
)

// DecodeNotify agrees with proto.Unmarshal on what servers write and on
// what they might: negative numbers, a target, a field the schema lacks,
// a required one missing, bytes cut short.
func TestDecodeNotifyAgreesWithProto(t *testing.T) {
	marshal := func(m *pb.NotifyMessage) []byte {
		b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	full := marshal(&pb.NotifyMessage{Type: proto.Int32(0), Head: proto.Int64(1 << 40), Target: proto.String("g1")})
	inputs := map[string][]byte{
		"type and head": marshal(&pb.NotifyMessage{Type: proto.Int32(2), Head: proto.Int64(17)}),
		"with a target": full,
		"negative":      marshal(&pb.NotifyMessage{Type: proto.Int32(-1), Head: proto.Int64(-5)}),
		"head missing":  marshal(&pb.NotifyMessage{Type: proto.Int32(0)}),
		"unknown field": protowire.AppendVarint(protowire.AppendTag(full, 9, protowire.VarintType), 3),
		"head twice":    protowire.AppendVarint(protowire.AppendTag(full, 2, protowire.VarintType), 99),
		"cut short":     full[:len(full)-1],
		"empty":         nil,
		"target as int": protowire.AppendVarint(protowire.AppendTag(marshal(&pb.NotifyMessage{Type: proto.Int32(0), Head: proto.Int64(1)}), 3, protowire.VarintType), 1),
	}
	for name, b := range inputs {
		typ, head, err := DecodeNotify(b)
		var want pb.NotifyMessage
		werr := proto.Unmarshal(b, &want)
		if (err != nil) != (werr != nil) || err == nil && (typ != want.GetType() || head != want.GetHead()) {
			t.Errorf("%s: got %d, %d, %v; proto gives %d, %d, %v", name, typ, head, err, want.GetType(), want.GetHead(), werr)
		}
	}
	if _, _, ok := notifyPlain(full); !ok {
		t.Error("the form servers write went through proto")
	}
}
