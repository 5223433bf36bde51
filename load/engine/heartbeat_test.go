package engine_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
)

// talkConn is a connection whose server takes any packet as a sign of life;
// talking says it has just written (acknowledgements, say).
type talkConn struct {
	*fakeConn
	talking bool
	pings   *atomic.Int64
}

func (c *talkConn) WroteSince(time.Time) bool { return c.talking }
func (c *talkConn) Ping() error {
	c.pings.Add(1)
	return nil
}

type talkHub struct {
	*hub
	pings [2]atomic.Int64
}

func (h *talkHub) Connect(ctx context.Context, u uint32, hd engine.Handler) (engine.Conn, error) {
	c, _ := h.hub.Connect(ctx, u, hd)
	return &talkConn{fakeConn: c.(*fakeConn), talking: u == 0, pings: &h.pings[u]}, nil
}

func talkSession(t *testing.T, opts engine.Options) (*talkHub, *engine.Shared, *engine.Session) {
	t.Helper()
	p := buildPlan(t, `{"kind":"groups","groups":1,"members":2,"allOnline":true,"rate":1,"messages":1}`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	h := &talkHub{hub: &hub{p: p, conns: map[uint32]*fakeConn{}, seq: map[uint32]uint64{}, joined: map[uint32]map[uint32]bool{}}}
	sh := engine.NewShared("beat", p, h, opts)
	s := sh.NewSession(ctx, 0, uint32(p.Users))
	if r := s.Login(plan.Immediate); r.Failed != 0 {
		t.Fatal(r.FirstErr)
	}
	return h, sh, s
}

// After silence (MQTT's keepAlive): a connection that has written within
// the ping interval is not pinged (its server saw it alive); a quiet one
// is, once an interval; both are counted.
func TestPingsAfterSilenceSkipAConnectionThatWrote(t *testing.T) {
	h, sh, s := talkSession(t, engine.Options{PingInterval: time.Second, PingAfterSilence: true})
	time.Sleep(2500 * time.Millisecond)
	s.Close()
	tot := sh.Totals()
	if talked, quiet := h.pings[0].Load(), h.pings[1].Load(); talked != 0 || quiet < 2 || quiet > 3 {
		t.Fatalf("pings: %d to the connection that wrote, %d to the quiet one over 2.5 s at 1 s", talked, quiet)
	}
	if tot.HeartbeatsSent != h.pings[1].Load() || tot.HeartbeatsSkipped < 2 {
		t.Fatalf("counted %d sent (%d made), %d skipped", tot.HeartbeatsSent, h.pings[1].Load(), tot.HeartbeatsSkipped)
	}
}

// On a fixed timer (the WuKongIM and OpenIM SDKs) every connection is
// pinged once an interval, whatever it wrote.
func TestFixedPingsGoToEveryConnection(t *testing.T) {
	h, sh, s := talkSession(t, engine.Options{PingInterval: time.Second})
	time.Sleep(2500 * time.Millisecond)
	s.Close()
	tot := sh.Totals()
	if talked, quiet := h.pings[0].Load(), h.pings[1].Load(); talked < 2 || talked > 3 || quiet < 2 || quiet > 3 {
		t.Fatalf("pings: %d to the connection that wrote, %d to the quiet one over 2.5 s at 1 s", talked, quiet)
	}
	if tot.HeartbeatsSent != h.pings[0].Load()+h.pings[1].Load() || tot.HeartbeatsSkipped != 0 {
		t.Fatalf("counted %d sent, %d skipped", tot.HeartbeatsSent, tot.HeartbeatsSkipped)
	}
}
