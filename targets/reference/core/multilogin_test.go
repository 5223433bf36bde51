package core

import "testing"

// SameTokenJoins keeps the sessions of one token on a device side by side,
// each pushed to and each detached alone; another token still kicks them
// all. Without it, the same token replaces (closes) the earlier session.
func TestSameTokenJoinsKeepsSessionsOfOneToken(t *testing.T) {
	c := newCore(t, Faults{})
	if err := c.Register([]string{"u", "v"}); err != nil {
		t.Fatal(err)
	}
	tok, _ := c.UserToken("u", 2)
	var outs []*outlet
	var sessions []*Session
	for range 2 {
		o := &outlet{}
		s := NewSession("u", 2, tok, o)
		s.SameTokenJoins = true
		if err := c.Attach(s); err != nil {
			t.Fatal(err)
		}
		outs, sessions = append(outs, o), append(sessions, s)
	}
	if outs[0].closed || outs[0].kicked || c.conns != 2 || c.metrics.Counts.OnlineUsers() != 1 {
		t.Fatalf("second login of the same token: first closed %v kicked %v, %d conns", outs[0].closed, outs[0].kicked, c.conns)
	}
	if _, err := c.Send(&Message{Conv: DirectKey("u", "v"), Sender: "v", Payload: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if len(outs[0].pushes) != 1 || len(outs[1].pushes) != 1 {
		t.Fatalf("pushes %d and %d, want one each", len(outs[0].pushes), len(outs[1].pushes))
	}
	if got := c.OnlineDevices("u"); len(got) != 1 || got[0] != 2 {
		t.Fatalf("online devices %v", got)
	}
	c.Detach(sessions[0])
	if c.conns != 1 || len(c.online["u"][2]) != 1 || c.online["u"][2][0] != sessions[1] {
		t.Fatalf("after one detach: %d conns, %v", c.conns, c.online["u"])
	}
	c.Detach(sessions[0]) // twice: nothing more
	if c.conns != 1 {
		t.Fatalf("a second detach of the same session counted: %d conns", c.conns)
	}

	newTok, _ := c.UserToken("u", 2)
	o := &outlet{}
	s := NewSession("u", 2, newTok, o)
	s.SameTokenJoins = true
	if err := c.Attach(s); err != nil {
		t.Fatal(err)
	}
	if !outs[1].kicked || c.conns != 1 {
		t.Fatalf("another token: kicked %v, %d conns", outs[1].kicked, c.conns)
	}
	again := &outlet{}
	if err := c.Attach(NewSession("u", 2, newTok, again)); err != nil {
		t.Fatal(err)
	}
	if !o.closed || o.kicked || c.conns != 1 {
		t.Fatalf("same token without SameTokenJoins: closed %v kicked %v, %d conns", o.closed, o.kicked, c.conns)
	}
	if c.OnlineDevices("w") == nil || len(c.OnlineDevices("w")) != 0 {
		t.Fatal("a user with no session has devices")
	}
}

// A system message (a notification) is never faulted, and the server may
// send it to a group its sender is not in; a user's message still is
// faulted and refused there.
func TestSystemMessagesAreNeverFaulted(t *testing.T) {
	c := newCore(t, Faults{Lose: 1, SkipPush: 1, Duplicate: 1})
	if err := c.Register([]string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateGroup("g", "a", []string{"b"}); err != nil {
		t.Fatal(err)
	}
	ob := attach(t, c, "b", 1)
	m, err := c.Send(&Message{Conv: GroupKey("g"), Sender: c.AdminID(), Payload: []byte("n"), System: true})
	if err != nil || m.Seq != 1 || len(ob.pushes) != 1 {
		t.Fatalf("system message: %+v %v, %d pushes", m, err, len(ob.pushes))
	}
	if _, err := c.Send(&Message{Conv: GroupKey("g"), Sender: c.AdminID(), Payload: []byte("x")}); err == nil {
		t.Fatal("a user message from a non-member was accepted")
	}
	if m, err := c.Send(&Message{Conv: GroupKey("g"), Sender: "a", Payload: []byte("x")}); err != nil || m.Seq != 0 {
		t.Fatalf("user message under the lose fault: %+v %v", m, err)
	}
}
