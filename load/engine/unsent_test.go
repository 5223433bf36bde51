package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// slowConn acknowledges every send 200 ms late: one user with one
// message in flight cannot keep 100 msg/s.
type slowConn struct{ *fakeConn }

func (c slowConn) Send(m plan.Msg, text []byte, createMs int64, done func(error)) error {
	return c.fakeConn.Send(m, text, createMs, func(err error) { time.AfterFunc(200*time.Millisecond, func() { done(err) }) })
}

type slowHub struct{ *hub }

func (h slowHub) Connect(ctx context.Context, u uint32, hd engine.Handler) (engine.Conn, error) {
	c, _ := h.hub.Connect(ctx, u, hd)
	return slowConn{c.(*fakeConn)}, nil
}

// What was still to send when the send phase ended is unsent, not failed:
// every send made was answered (the last after the phase), and planned =
// acknowledged + unsent.
func TestUnsentIsNotFailed(t *testing.T) {
	p := buildPlan(t, `{"kind":"groups","groups":1,"members":2,"senders":1,"allOnline":true,"rate":100,"messages":50}`)
	h := slowHub{&hub{p: p, conns: map[uint32]*fakeConn{}, seq: map[uint32]uint64{}, joined: map[uint32]map[uint32]bool{}}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sh := engine.NewShared("unsent", p, h, engine.Options{DrainQuiet: 200 * time.Millisecond})
	s := sh.NewSession(ctx, 0, uint32(p.Users))
	if r := s.Login(plan.Immediate); r.Failed != 0 {
		t.Fatal(r.FirstErr)
	}
	res := s.Send(time.Now().Add(20*time.Millisecond), 300*time.Millisecond)
	s.Drain()
	s.Close()
	tot := sh.Totals()
	acked, failed := verify.Sum(tot.Acked), verify.Sum(tot.SendFailed)
	if res.Unsent == 0 || failed != 0 || acked+tot.Unsent != 50 || tot.Unsent != int64(res.Unsent) {
		t.Fatalf("acked %d, failed %d, unsent %d (the phase said %d) of 50 planned", acked, failed, tot.Unsent, res.Unsent)
	}
}
