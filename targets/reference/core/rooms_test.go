package core

import (
	"errors"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func value(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

func roomSend(t *testing.T, c *Core, room, sender, text string) *Message {
	t.Helper()
	m, err := c.Send(&Message{Conv: RoomKey(room), Sender: sender, Payload: []byte(text)})
	if err != nil {
		t.Fatalf("%s to chatroom %s: %v", sender, room, err)
	}
	return m
}

func texts(o *outlet) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, p := range o.pushes {
		out = append(out, fmt.Sprintf("%s#%d", p.Msg.Payload, p.Msg.Seq))
	}
	return fmt.Sprint(out)
}

// A chatroom pushes a message to the members of the moment, online: one who
// joins later gets only later messages, one who left gets no more, and a
// non-member may not write. Seqs count per room; nothing is kept to pull.
func TestRoomJoinLeaveAndFanOut(t *testing.T) {
	c := newCore(t, Faults{})
	if err := c.Register([]string{"a", "b", "c", "d"}); err != nil {
		t.Fatal(err)
	}
	if Room.String() != "room" || !Room.valid() || Room.keepsHistory() {
		t.Fatalf("kind %v", Room)
	}
	if err := c.JoinRoom("r", "a", "ghost"); !errors.Is(err, ErrUnknownUser) {
		t.Fatalf("joining an unknown user: %v", err)
	}
	if _, err := c.RoomMembers("r"); !errors.Is(err, ErrUnknownGroup) {
		t.Fatalf("a refused join made the room: %v", err)
	}
	if err := c.JoinRoom(""); !errors.Is(err, ErrBadArgs) {
		t.Fatalf("a room without an id: %v", err)
	}
	if err := c.JoinRoom("r", "a", "b", "a"); err != nil {
		t.Fatal(err)
	}
	a1, a2 := attach(t, c, "a", 1), attach(t, c, "a", 2)
	b, cc := attach(t, c, "b", 1), attach(t, c, "c", 1)

	if m := roomSend(t, c, "r", "a", "m1"); m.Seq != 1 || m.Time == 0 {
		t.Fatalf("first message %+v", m)
	}
	if _, err := c.Send(&Message{Conv: RoomKey("r"), Sender: "c", Payload: []byte("x")}); !errors.Is(err, ErrNotMember) {
		t.Fatalf("a non-member's message: %v, want ErrNotMember", err)
	}
	if _, err := c.Send(&Message{Conv: RoomKey("nope"), Sender: "a", Payload: []byte("x")}); !errors.Is(err, ErrUnknownGroup) {
		t.Fatalf("an unknown room: %v, want ErrUnknownGroup", err)
	}
	if _, err := c.Send(&Message{Conv: GroupKey("r"), Sender: "a", Payload: []byte("x")}); !errors.Is(err, ErrUnknownGroup) {
		t.Fatalf("a room is not a group: %v", err)
	}

	if err := c.JoinRoom("r", "c", "d"); err != nil { // d is a member offline
		t.Fatal(err)
	}
	roomSend(t, c, "r", "b", "m2")
	if err := c.LeaveRoom("r", "b", "nobody"); err != nil {
		t.Fatal(err)
	}
	roomSend(t, c, "r", "c", "m3")
	if _, err := c.Send(&Message{Conv: RoomKey("r"), Sender: "b", Payload: []byte("x")}); !errors.Is(err, ErrNotMember) {
		t.Fatalf("a member who left: %v, want ErrNotMember", err)
	}

	for _, w := range []struct {
		name string
		o    *outlet
		want string
	}{
		{"a's first device", a1, "[m1#1 m2#2 m3#3]"}, // the sender's own copy included
		{"a's second device", a2, "[m1#1 m2#2 m3#3]"},
		{"b, who left", b, "[m1#1 m2#2]"},
		{"c, who joined later", cc, "[m2#2 m3#3]"},
	} {
		if got := texts(w.o); got != w.want {
			t.Errorf("%s got %s, want %s", w.name, got, w.want)
		}
	}
	if got, err := c.RoomMembers("r"); err != nil || fmt.Sprint(got) != "[a c d]" {
		t.Fatalf("members %v %v", got, err)
	}
	if a, r := c.metrics.Counts.Accepted(Room), c.metrics.Counts.Refused(Room); a != 3 || r != 3 {
		t.Fatalf("room messages accepted %d refused %d, want 3 and 3", a, r)
	}

	// Seqs, but no history: not listed for a login's sync, pulls answer
	// nothing, and the conversation holds no message.
	if n := c.LastSeq(RoomKey("r")); n != 3 {
		t.Fatalf("last seq %d", n)
	}
	if seqs := c.MaxSeqs("a"); len(seqs) != 0 {
		t.Fatalf("max seqs list a chatroom: %v", seqs)
	}
	if p, err := c.Pull("a", RoomKey("r"), 1, 10, 10); err != nil || len(p.Msgs) != 0 || !p.AtEnd {
		t.Fatalf("a member's pull: %+v %v", p, err)
	}
	for _, u := range []string{"b", "nobody"} {
		if _, err := c.Pull(u, RoomKey("r"), 1, 10, 10); !errors.Is(err, ErrNotMember) {
			t.Fatalf("%s's pull: %v, want ErrNotMember", u, err)
		}
	}
	c.mu.RLock()
	cv := c.convs[RoomKey("r")]
	c.mu.RUnlock()
	if cv == nil || cv.msgs != nil || cv.seq != 3 {
		t.Fatalf("room conversation %+v", cv)
	}

	// Leaving everyone keeps the room and its seq.
	if err := c.LeaveRoom("r", "a", "c", "d"); err != nil {
		t.Fatal(err)
	}
	if err := c.JoinRoom("r", "d"); err != nil {
		t.Fatal(err)
	}
	if m := roomSend(t, c, "r", "d", "m4"); m.Seq != 4 {
		t.Fatalf("seq after an empty room %d", m.Seq)
	}
	if err := c.LeaveRoom("nope", "a"); !errors.Is(err, ErrUnknownGroup) {
		t.Fatalf("leaving an unknown room: %v", err)
	}
}

// Leaving swaps the last member into the leaver's place: membership stays
// exact through any order of joins and leaves.
func TestRoomMembershipChurn(t *testing.T) {
	c := newCore(t, Faults{})
	var all []string
	for i := range 20 {
		all = append(all, fmt.Sprintf("u%02d", i))
	}
	if err := c.Register(all); err != nil {
		t.Fatal(err)
	}
	if err := c.JoinRoom("r", all...); err != nil {
		t.Fatal(err)
	}
	in := map[string]bool{}
	for _, u := range all {
		in[u] = true
	}
	for i, u := range all {
		if i%3 != 0 {
			c.LeaveRoom("r", u)
			delete(in, u)
		}
	}
	c.JoinRoom("r", all[1], all[2])
	in[all[1]], in[all[2]] = true, true
	got, _ := c.RoomMembers("r")
	if len(got) != len(in) {
		t.Fatalf("members %v, want %d", got, len(in))
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	r := c.rooms["r"]
	for i, u := range r.list {
		if !in[u] || r.members[u] != i {
			t.Fatalf("member %s at %d, indexed %d (in %v)", u, i, r.members[u], in[u])
		}
	}
}

// A lost chatroom message owes a delivery to every other member when it was
// sent, connected or not, as a load client expects it; other faults count
// per push as for any conversation, on the room's series.
func TestRoomFaultsCountPerDelivery(t *testing.T) {
	c := newCore(t, Faults{Lose: 1, Seed: 1})
	if err := c.Register([]string{"a", "b", "c", "d"}); err != nil {
		t.Fatal(err)
	}
	c.JoinRoom("r", "a", "b", "c") // d stays out
	b := attach(t, c, "b", 1)      // c is a member offline
	attach(t, c, "d", 1)
	m := roomSend(t, c, "r", "a", "x")
	if m.Seq != 0 || len(b.pushes) != 0 || c.LastSeq(RoomKey("r")) != 0 {
		t.Fatalf("lost message %+v, %d pushes", m, len(b.pushes))
	}
	mt := c.metrics
	if msgs, deliv := value(t, mt.faultLostMsgs[Room]), value(t, mt.faultLostDeliv[Room]); msgs != 1 || deliv != 2 {
		t.Fatalf("lost %v messages, %v deliveries; want 1 and 2", msgs, deliv)
	}
	if g := value(t, mt.faultLostDeliv[Group]); g != 0 {
		t.Fatalf("a room's loss counted as a group's: %v", g)
	}

	c = newCore(t, Faults{SkipPush: 1, Seed: 1})
	c.Register([]string{"a", "b", "c"})
	c.JoinRoom("r", "a", "b", "c")
	self := attach(t, c, "a", 1)
	attach(t, c, "b", 1)
	attach(t, c, "c", 1)
	roomSend(t, c, "r", "a", "x")
	if n := value(t, c.metrics.faultSkipped[Room]); n != 2 || len(self.pushes) != 1 {
		t.Fatalf("skipped %v pushes, sender's copies %d; want 2 and 1", n, len(self.pushes))
	}

	c = newCore(t, Faults{Duplicate: 1, Seed: 1})
	c.Register([]string{"a", "b"})
	c.JoinRoom("r", "a", "b")
	b = attach(t, c, "b", 1)
	roomSend(t, c, "r", "a", "x")
	if n := value(t, c.metrics.faultDuplicated[Room]); n != 1 || len(b.pushes) != 2 {
		t.Fatalf("duplicated %v, b got %d pushes", n, len(b.pushes))
	}
}
