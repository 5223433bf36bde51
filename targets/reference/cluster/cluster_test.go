package cluster

import (
	"errors"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
)

type outlet struct {
	mu     sync.Mutex
	pushes []*core.Push
	got    chan struct{}
}

func (o *outlet) Deliver(p *core.Push, _ time.Time) bool {
	o.mu.Lock()
	o.pushes = append(o.pushes, p)
	o.mu.Unlock()
	o.got <- struct{}{}
	return true
}
func (o *outlet) Kick()       {}
func (o *outlet) Close() bool { return true }

// Keys, pages and refusals cross the link as they are: a refusal still Is
// its sentinel on the gateway's side, and a message fanned out to two
// sessions of one gateway arrives there as one push.
func TestLinkCarriesTheCoreAsIs(t *testing.T) {
	c, err := core.New(core.Config{Secret: "s", Log: slog.New(slog.DiscardHandler)}, core.NewMetrics())
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go Serve(l, c, slog.New(slog.DiscardHandler))
	r, err := Dial(l.Addr().String(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}

	if err := c.Register([]string{"a", "b", "c"}); err != nil {
		t.Fatal(err)
	}
	gid, _ := c.CreateGroup("g", "a", []string{"b", "c"})
	if err := r.CheckLogin("nope", "b", 1); !errors.Is(err, core.ErrTokenUnknown) {
		t.Fatalf("unknown token over the link: %v", err)
	}
	if err := r.CheckLogin(must(c.UserToken("b", 1)), "b", 1); err != nil {
		t.Fatalf("a good login over the link: %v (a nil refusal must be a nil error)", err)
	}
	ob, oc := &outlet{got: make(chan struct{}, 4)}, &outlet{got: make(chan struct{}, 4)}
	for _, s := range []*core.Session{core.NewSession("b", 1, "t1", ob), core.NewSession("c", 1, "t2", oc)} {
		if err := r.Attach(s); err != nil {
			t.Fatal(err)
		}
	}
	m, err := r.Send(&core.Message{Conv: core.GroupKey(gid), Sender: "a", Payload: []byte("hi")})
	if err != nil || m.Seq != 1 {
		t.Fatalf("send over the link: %+v %v", m, err)
	}
	<-ob.got
	<-oc.got
	if ob.pushes[0] != oc.pushes[0] || string(ob.pushes[0].Msg.Payload) != "hi" {
		t.Fatal("one message reached a gateway's two sessions as two pushes")
	}
	if _, err := r.Send(&core.Message{Conv: core.GroupKey("x"), Sender: "a", Payload: []byte{}}); !errors.Is(err, core.ErrUnknownGroup) {
		t.Fatalf("refused send over the link: %v", err)
	}
	if seqs := r.MaxSeqs("c"); seqs[core.GroupKey(gid)] != 1 {
		t.Fatalf("max seqs over the link: %v", seqs)
	}
	page, err := r.Pull("c", core.GroupKey(gid), 1, 5, 5)
	if err != nil || len(page.Msgs) != 1 || !page.AtEnd || page.EndSeq != 1 {
		t.Fatalf("pull over the link: %+v %v", page, err)
	}
	if _, err := r.Pull("c", core.DirectKey("a", "b"), 1, 5, 5); !errors.Is(err, core.ErrNotMember) {
		t.Fatalf("a pull of someone else's conversation: %v", err)
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// A write that a full buffer makes in the middle of a busy stretch gets a
// deadline of its own, not one left from the last quiet moment.
func TestEveryLinkWriteHasAFreshDeadline(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	a.SetWriteDeadline(time.Now().Add(-time.Second))
	go func() {
		buf := make([]byte, 8)
		b.Read(buf)
	}()
	if _, err := (deadlineConn{a}).Write([]byte("message")); err != nil {
		t.Fatalf("a write after a stale deadline: %v", err)
	}
}
