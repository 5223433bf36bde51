package core

import (
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// outlet records what the core hands a connection.
type outlet struct {
	mu     sync.Mutex
	pushes []*Push
	kicked bool
	closed bool
}

func (o *outlet) Deliver(p *Push, _ time.Time) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pushes = append(o.pushes, p)
	return true
}

func (o *outlet) Kick() { o.mu.Lock(); o.kicked = true; o.mu.Unlock() }

func (o *outlet) Close() bool { o.mu.Lock(); o.closed = true; o.mu.Unlock(); return true }

func newCore(t *testing.T, f Faults) *Core {
	t.Helper()
	c, err := New(Config{Secret: "s", Faults: f, Log: slog.New(slog.DiscardHandler)}, NewMetrics())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func attach(t *testing.T, c *Core, user string, device int) *outlet {
	t.Helper()
	tok, err := c.UserToken(user, device)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckLogin(tok, user, device); err != nil {
		t.Fatal(err)
	}
	o := &outlet{}
	if err := c.Attach(NewSession(user, device, tok, o)); err != nil {
		t.Fatal(err)
	}
	return o
}

// The core with no protocol at all: accounts, a group, a message fanned out
// to two sessions as one push, pulled back, and refusals as sentinels.
func TestGroupMessageFansOutAndPulls(t *testing.T) {
	c := newCore(t, Faults{})
	if err := c.Register([]string{"alice", "bob", "carol", "dave"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Register([]string{"bob"}); !errors.Is(err, ErrExists) {
		t.Fatalf("registering bob twice: %v, want ErrExists", err)
	}
	gid, err := c.CreateGroup("", "alice", []string{"bob", "carol"})
	if err != nil || gid == "" {
		t.Fatalf("create group: %q %v", gid, err)
	}
	bob, carol := attach(t, c, "bob", 1), attach(t, c, "carol", 2)
	if n := c.metrics.Counts.OnlineUsers(); n != 2 {
		t.Fatalf("online users %d, want 2", n)
	}

	key := GroupKey(gid)
	m, err := c.Send(&Message{Conv: key, Sender: "alice", ClientID: "c1", Payload: []byte("hello")})
	if err != nil {
		t.Fatal(err)
	}
	if m.Seq != 1 || m.Time == 0 {
		t.Fatalf("stored seq %d time %d", m.Seq, m.Time)
	}
	if len(bob.pushes) != 1 || len(carol.pushes) != 1 || bob.pushes[0] != carol.pushes[0] {
		t.Fatalf("pushes: bob %d carol %d, want one shared push each", len(bob.pushes), len(carol.pushes))
	}
	built := 0
	for _, o := range []*outlet{bob, carol} {
		o.pushes[0].Slot(func(*Message) any { built++; return built })
	}
	if built != 1 {
		t.Fatalf("a push's slot was made %d times, want once per fan-out", built)
	}

	_, err = c.Send(&Message{Conv: key, Sender: "dave", Payload: []byte("x")})
	if !errors.Is(err, ErrNotMember) {
		t.Fatalf("a non-member's message: %v, want ErrNotMember", err)
	}
	if _, err = c.Send(&Message{Conv: GroupKey("nope"), Sender: "alice", Payload: []byte("x")}); !errors.Is(err, ErrUnknownGroup) {
		t.Fatalf("unknown group: %v", err)
	}
	if a, r := c.metrics.Counts.Accepted(Group), c.metrics.Counts.Refused(Group); a != 1 || r != 2 {
		t.Fatalf("group messages accepted %d refused %d, want 1 and 2", a, r)
	}

	page, err := c.Pull("carol", key, 1, 10, 10)
	if err != nil || len(page.Msgs) != 1 || string(page.Msgs[0].Payload) != "hello" || !page.AtEnd || page.EndSeq != 1 {
		t.Fatalf("pull: %+v %v", page, err)
	}
	if _, err := c.Pull("dave", key, 1, 10, 10); !errors.Is(err, ErrNotMember) {
		t.Fatalf("a non-member's pull: %v, want ErrNotMember", err)
	}
	if seqs := c.MaxSeqs("bob"); len(seqs) != 1 || seqs[key] != 1 {
		t.Fatalf("max seqs %v", seqs)
	}
}

func TestDirectConversationIsKeyedByItsUsers(t *testing.T) {
	c := newCore(t, Faults{})
	if err := c.Register([]string{"u1", "u2"}); err != nil {
		t.Fatal(err)
	}
	if DirectKey("u2", "u1") != DirectKey("u1", "u2") {
		t.Fatal("a direct key depends on the order of its users")
	}
	sender, recv := attach(t, c, "u2", 1), attach(t, c, "u1", 1)
	for i := 1; i <= 3; i++ {
		m, err := c.Send(&Message{Conv: DirectKey("u2", "u1"), Sender: "u2", Payload: []byte{byte(i)}})
		if err != nil || m.Seq != int64(i) {
			t.Fatalf("send %d: seq %v %v", i, m, err)
		}
	}
	if len(recv.pushes) != 3 || len(sender.pushes) != 3 {
		t.Fatalf("pushes: receiver %d sender %d, want 3 each (the sender's devices stay in sync)", len(recv.pushes), len(sender.pushes))
	}
	page, err := c.Pull("u1", DirectKey("u1", "u2"), 1, 3, 2)
	if err != nil || len(page.Msgs) != 2 || page.Msgs[0].Seq != 2 {
		t.Fatalf("pull of the last 2: %+v %v", page, err)
	}
	if _, err := c.Send(&Message{Conv: DirectKey("u1", "ghost"), Sender: "u1", Payload: []byte{}}); !errors.Is(err, ErrUnknownUser) {
		t.Fatalf("to an unknown user: %v", err)
	}
	if _, err := c.Send(&Message{Conv: DirectKey("u1", "u2"), Sender: "u3", Payload: []byte{}}); !errors.Is(err, ErrNotMember) {
		t.Fatalf("from outside the pair: %v", err)
	}
}

func TestTokensAndSessionsPerDevice(t *testing.T) {
	c := newCore(t, Faults{})
	if err := c.Register([]string{"u"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AdminToken("wrong", "imAdmin", 0); !errors.Is(err, ErrNoPermission) {
		t.Fatalf("wrong secret: %v", err)
	}
	first, _ := c.UserToken("u", 1)
	if err := c.CheckLogin(first, "u", 2); !errors.Is(err, ErrTokenInvalid) {
		t.Fatalf("token of another device: %v", err)
	}
	second, _ := c.UserToken("u", 1)
	if err := c.CheckLogin(first, "u", 1); !errors.Is(err, ErrTokenKicked) {
		t.Fatalf("replaced token: %v", err)
	}
	if err := c.CheckLogin("nope", "u", 1); !errors.Is(err, ErrTokenUnknown) {
		t.Fatalf("unknown token: %v", err)
	}
	old := &outlet{}
	if err := c.Attach(NewSession("u", 1, first, old)); err != nil {
		t.Fatal(err)
	}
	if err := c.Attach(NewSession("u", 1, second, &outlet{})); err != nil {
		t.Fatal(err)
	}
	if !old.kicked {
		t.Fatal("a newer login on the same device did not kick the older session")
	}
	err := c.Befriend("u", []string{"u"})
	var ce *Error
	if !errors.Is(err, ErrSelf) || !errors.As(err, &ce) || ce.Detail != "u" || errors.Is(err, ErrExists) {
		t.Fatalf("befriending oneself: %v", err)
	}
}

func TestLoseFaultAcknowledgesWithoutStoring(t *testing.T) {
	c := newCore(t, Faults{Lose: 1, Seed: 1})
	if err := c.Register([]string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	recv := attach(t, c, "b", 1)
	m, err := c.Send(&Message{Conv: DirectKey("a", "b"), Sender: "a", Payload: []byte("x")})
	if err != nil || m.Seq != 0 || len(recv.pushes) != 0 {
		t.Fatalf("lost message: %+v %v, %d pushes", m, err, len(recv.pushes))
	}
	if n := c.metrics.Counts.Accepted(Direct); n != 1 {
		t.Fatalf("accepted %d, want 1", n)
	}
}

// Faults compose: a target at its capacity that also drops large batches
// serves each message in its turn, then stores it with its conversation's
// batch, or drops the batch whole (never one fault silently off).
func TestCapacityAndBatchDropCompose(t *testing.T) {
	c := newCore(t, Faults{Capacity: 2000, BatchDrop: 3, BatchWindow: 200 * time.Millisecond})
	if err := c.Register([]string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	recv := attach(t, c, "b", 1)
	key := DirectKey("a", "b")
	for i := range 10 {
		if m, err := c.Send(&Message{Conv: key, Sender: "a", Payload: []byte{byte(i)}}); err != nil || m.Seq != 0 {
			t.Fatalf("send %d: %+v %v, want an answer with no seq", i, m, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for value(t, c.metrics.faultBatchDrops) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // every window flushed
	page, err := c.Pull("b", key, 1, 20, 20)
	if err != nil {
		t.Fatal(err)
	}
	recv.mu.Lock()
	pushed := len(recv.pushes)
	recv.mu.Unlock()
	if drops := value(t, c.metrics.faultBatchDrops); drops == 0 || len(page.Msgs) != pushed || len(page.Msgs) >= 10 {
		t.Fatalf("%g batches dropped, %d stored, %d pushed of 10 sent", drops, len(page.Msgs), pushed)
	}
}
