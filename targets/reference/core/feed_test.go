package core

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// storer is an outlet that keeps a feed: what the skip-push fault leaves
// out comes to Store.
type storer struct {
	outlet
	stored []*Push
}

func (o *storer) Store(p *Push) {
	o.mu.Lock()
	o.stored = append(o.stored, p)
	o.mu.Unlock()
}

// A skipped push goes to a Storer's Store (after what the reorder fault
// held for that conversation), and nowhere for other outlets.
func TestSkippedPushesAreStored(t *testing.T) {
	c := newCore(t, Faults{SkipPush: 1, Seed: 1})
	c.Register([]string{"a", "b", "c"})
	tok, _ := c.UserToken("b", 1)
	b := &storer{}
	if err := c.Attach(NewSession("b", 1, tok, b)); err != nil {
		t.Fatal(err)
	}
	plain := attach(t, c, "c", 1)
	c.Send(&Message{Conv: DirectKey("a", "b"), Sender: "a", Payload: []byte("x")})
	c.Send(&Message{Conv: DirectKey("a", "c"), Sender: "a", Payload: []byte("y")})
	if len(b.pushes) != 0 || len(b.stored) != 1 || string(b.stored[0].Msg.Payload) != "x" {
		t.Fatalf("storer: %d pushes, %d stored", len(b.pushes), len(b.stored))
	}
	if len(plain.pushes) != 0 || value(t, c.metrics.faultSkipped[Direct]) != 2 {
		t.Fatalf("plain outlet: %d pushes", len(plain.pushes))
	}
}

// The feed hook gets the marked members without a session, in seq order,
// never for a lost message nor a chatroom; unmarked users cost nothing.
func TestFeedHookGetsOfflineMembers(t *testing.T) {
	c := newCore(t, Faults{})
	c.Register([]string{"a", "b", "c", "d"})
	var mu sync.Mutex
	var got []string
	c.SetFeed(func(p *Push, offline []string) {
		mu.Lock()
		got = append(got, fmt.Sprintf("%s#%d%v", p.Msg.Payload, p.Msg.Seq, offline))
		mu.Unlock()
	})
	c.CreateGroup("g", "a", []string{"b", "c", "d"})
	c.Send(&Message{Conv: GroupKey("g"), Sender: "a", Payload: []byte("m0")}) // nobody marked
	for _, u := range []string{"a", "b", "c"} {
		c.KeepFeed(u)
	}
	c.KeepFeed("b")
	attach(t, c, "c", 1) // online: pushed, not filed
	c.Send(&Message{Conv: GroupKey("g"), Sender: "a", Payload: []byte("m1")})
	c.Send(&Message{Conv: DirectKey("b", "a"), Sender: "b", Payload: []byte("m2")})
	c.JoinRoom("r", "a", "b")
	c.Send(&Message{Conv: RoomKey("r"), Sender: "a", Payload: []byte("m3")})
	if want := "[m1#2[b] m2#1[a]]"; fmt.Sprint(got) != want {
		t.Fatalf("feed hook got %v, want %s", got, want)
	}

	c = newCore(t, Faults{Lose: 1, Seed: 1})
	c.Register([]string{"a", "b"})
	c.KeepFeed("b")
	c.SetFeed(func(*Push, []string) { t.Error("a lost message filed") })
	c.Send(&Message{Conv: DirectKey("a", "b"), Sender: "a", Payload: []byte("x")})
}

// A push held by the reorder fault is handed to the outlet when its
// session ends, rather than dropped.
func TestDetachHandsHeldPushes(t *testing.T) {
	c := newCore(t, Faults{Reorder: 1, ReorderHold: time.Hour, Seed: 1})
	c.Register([]string{"a", "b"})
	tok, _ := c.UserToken("b", 1)
	b := &outlet{}
	s := NewSession("b", 1, tok, b)
	c.Attach(s)
	c.Send(&Message{Conv: DirectKey("a", "b"), Sender: "a", Payload: []byte("x")})
	if len(b.pushes) != 0 {
		t.Fatalf("held push delivered early: %d", len(b.pushes))
	}
	c.Detach(s)
	if len(b.pushes) != 1 || string(b.pushes[0].Msg.Payload) != "x" {
		t.Fatalf("after detach: %d pushes", len(b.pushes))
	}
}
