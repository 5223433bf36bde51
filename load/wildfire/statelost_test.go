package wildfire

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// The real im-server answers a pull from 0 of a user's empty feed with
// current and head 2, and then gives that user's head as 0 in the CONNACK
// of a later login (a silent user the server closed for idleness): not a
// server that lost its state. A head below a message the user was shown
// still is one.
func TestAnEmptyFeedsTwoIsNotAStateTheServerLost(t *testing.T) {
	f := newPullFixture(t)
	d, me := f.d, f.me
	h := f.checker()
	c := f.conn(h)

	c.pulled(wire.PullNormal, 0, f.answer(t, &pb.PullMessageResult{Current: proto.Int64(2), Head: proto.Int64(2)}), nil)
	if got := d.heads[wire.PullNormal][me].Load(); got != 2 {
		t.Fatalf("the next pull starts at %d; the SDK's starts at the answer's current, 2", got)
	}
	if err := d.stateLost(me, 0); err != nil {
		t.Fatalf("a CONNACK head of 0 after the empty feed's answer: %v", err)
	}

	const seq = 588578821752520705
	c.pulled(wire.PullNormal, 2, f.answer(t, &pb.PullMessageResult{Current: proto.Int64(seq), Head: proto.Int64(seq),
		Message: []*pb.Message{f.message(seq)}}), nil)
	if h.Tally.Pulled[verify.KindIndex(plan.Group)].Load() != 1 {
		t.Fatal("the pulled message did not arrive")
	}
	if err := d.stateLost(me, seq); err != nil {
		t.Fatalf("a CONNACK head equal to what arrived: %v", err)
	}
	if err := d.stateLost(me, 0); !errors.Is(err, engine.ErrStateLost) {
		t.Fatalf("a CONNACK head of 0 after message %d arrived: %v, want the server lost its state", seq, err)
	}
}
