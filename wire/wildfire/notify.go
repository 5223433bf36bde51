package wildfire

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/wire/wildfire/pb"
)

// DecodeNotify reads an MN's NotifyMessage: the pull type and the head it
// announces. It gives what proto.Unmarshal into pb.NotifyMessage gives
// through the getters, and fails for the same input. The form servers
// write (type, head, perhaps a target) is read in place, without
// allocating: every delivery starts with one. Anything else goes through
// proto.Unmarshal.
func DecodeNotify(b []byte) (typ int32, head int64, err error) {
	if typ, head, ok := notifyPlain(b); ok {
		return typ, head, nil
	}
	var n pb.NotifyMessage
	if err := proto.Unmarshal(b, &n); err != nil {
		return 0, 0, err
	}
	return n.GetType(), n.GetHead(), nil
}

func notifyPlain(b []byte) (typ int32, head int64, ok bool) {
	var hasType, hasHead, hasTarget bool
	for len(b) > 0 {
		f, ok := nextField(&b)
		switch {
		case !ok:
			return 0, 0, false
		case f.is(1, protowire.VarintType):
			hasType, typ = true, int32(f.varint)
		case f.is(2, protowire.VarintType):
			hasHead, head = true, int64(f.varint)
		case f.is(3, protowire.BytesType) && !hasTarget:
			hasTarget = true
		default:
			return 0, 0, false
		}
	}
	return typ, head, hasType && hasHead
}
