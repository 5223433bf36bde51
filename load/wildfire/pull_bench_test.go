package wildfire

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// BenchmarkPulled is a group member's MP answer of one message, from the
// PUBACK to the verifier's verdict.
func BenchmarkPulled(b *testing.B) {
	f := newPullFixture(b)
	a := f.answer(b, &pb.PullMessageResult{Current: proto.Int64(1), Head: proto.Int64(1), Message: []*pb.Message{f.message(1)}})
	h := f.checker()
	c := f.conn(h)
	b.ReportAllocs()
	for b.Loop() {
		c.pulled(wire.PullNormal, 0, a, nil)
	}
	if h.Tally.Corrupt.Load()+h.Tally.Foreign.Load() > 0 || h.Tally.Pulled[verify.KindIndex(plan.Group)].Load() != 1 {
		b.Fatal("the pulled message did not verify")
	}
}
