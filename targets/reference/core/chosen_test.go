package core

import (
	"errors"
	"testing"
)

// Tokens a client chose: stored per user and device, the user registered
// on the way; one of another device, or a replaced one, is refused.
func TestChosenTokens(t *testing.T) {
	c := newCore(t, Faults{})
	if !c.CheckSecret("s") || c.CheckSecret("S") || c.CheckSecret("") {
		t.Fatal("secret check")
	}
	if err := c.SetToken("u", 7, "t1"); err != nil {
		t.Fatal(err)
	}
	if !c.Registered([]string{"u"})["u"] || c.metrics.Counts.Registered() != 1 {
		t.Fatal("user not registered by its token")
	}
	if err := c.CheckLogin("t1", "u", 7); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckLogin("t1", "u", 8); !errors.Is(err, ErrTokenUnknown) {
		t.Fatalf("another device: %v", err)
	}
	if err := c.CheckLogin("t1", "v", 7); !errors.Is(err, ErrTokenUnknown) {
		t.Fatalf("another user: %v", err)
	}
	c.SetToken("u", 7, "t2")
	if err := c.CheckLogin("t1", "u", 7); !errors.Is(err, ErrTokenInvalid) {
		t.Fatalf("replaced token: %v", err)
	}
	c.SetToken("u", 7, "")
	if err := c.CheckLogin("t2", "u", 7); !errors.Is(err, ErrTokenUnknown) {
		t.Fatalf("removed token: %v", err)
	}
	if err := c.SetToken("imAdmin", 1, "x"); !errors.Is(err, ErrBadArgs) {
		t.Fatalf("admin token: %v", err)
	}
	if err := c.SetToken("u", 7, "t3"); err != nil || c.metrics.Counts.Registered() != 1 {
		t.Fatalf("a user registered twice: %v", err)
	}
}

func TestRemoveMembersAndLastSeq(t *testing.T) {
	c := newCore(t, Faults{})
	c.Register([]string{"a", "b", "c"})
	if _, err := c.CreateGroup("g", "a", []string{"b", "c"}); err != nil {
		t.Fatal(err)
	}
	b := attach(t, c, "b", 1)
	if err := c.RemoveMembers("g", []string{"b", "nobody"}); err != nil {
		t.Fatal(err)
	}
	if m, _ := c.Members("g"); len(m) != 2 || m[0] != "a" || m[1] != "c" {
		t.Fatalf("members %v", m)
	}
	if _, err := c.Send(&Message{Conv: GroupKey("g"), Sender: "b", Payload: []byte("x")}); !errors.Is(err, ErrNotMember) {
		t.Fatalf("removed member sends: %v", err)
	}
	c.Send(&Message{Conv: GroupKey("g"), Sender: "a", Payload: []byte("x")})
	if len(b.pushes) != 0 || c.LastSeq(GroupKey("g")) != 1 || c.LastSeq(GroupKey("none")) != 0 {
		t.Fatalf("pushes %d last seq %d", len(b.pushes), c.LastSeq(GroupKey("g")))
	}
	if err := c.RemoveMembers("none", []string{"a"}); !errors.Is(err, ErrUnknownGroup) {
		t.Fatalf("unknown group: %v", err)
	}
	if _, err := c.Members("none"); !errors.Is(err, ErrUnknownGroup) {
		t.Fatalf("unknown group: %v", err)
	}
}

// Two front ends of one process keep their own values in one push.
func TestSlotsPerFrontEnd(t *testing.T) {
	type keyA struct{}
	type keyB struct{}
	p := &Push{Msg: &Message{}}
	made := 0
	mk := func(v string) func(*Message) any { return func(*Message) any { made++; return v } }
	if p.SlotFor(keyA{}, mk("a")) != "a" || p.SlotFor(keyB{}, mk("b")) != "b" || p.Slot(mk("n")) != "n" ||
		p.SlotFor(keyA{}, mk("x")) != "a" || p.SlotFor(keyB{}, mk("x")) != "b" || p.Slot(mk("x")) != "n" || made != 3 {
		t.Fatalf("slots made %d times", made)
	}
}
