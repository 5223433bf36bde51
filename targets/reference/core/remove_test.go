package core

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
)

// A deleted user leaves no trace the others can see: not a friend, not a
// member of a group or chatroom, no direct conversation, no token that
// logs in; its connection is kicked. The group it owned stays.
func TestDeleteUserLeavesNoTrace(t *testing.T) {
	c := newCore(t, Faults{})
	if err := c.Register([]string{"r_u0", "r_u1", "r_u2"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Befriend("r_u0", []string{"r_u1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateGroup("r_g", "r_u0", []string{"r_u1", "r_u2"}); err != nil {
		t.Fatal(err)
	}
	if err := c.JoinRoom("r_room", "r_u0", "r_u2"); err != nil {
		t.Fatal(err)
	}
	mustSend(t, c, &Message{Conv: DirectKey("r_u0", "r_u1"), Sender: "r_u0", Payload: []byte("hi")})
	o := attach(t, c, "r_u0", 1)
	tok, err := c.UserToken("r_u0", 2)
	if err != nil {
		t.Fatal(err)
	}

	if err := c.DeleteUser("r_u0"); err != nil {
		t.Fatal(err)
	}
	if users, _, _ := c.Census("r_u"); users != 2 {
		t.Fatalf("%d users left, want 2", users)
	}
	friends, _ := c.Friends("r_u1")
	members, _ := c.Members("r_g")
	inRoom, _ := c.RoomMembers("r_room")
	peers, _ := c.DirectPeers("r_u1")
	if len(friends) != 0 || !slices.Equal(members, []string{"r_u1", "r_u2"}) || !slices.Equal(inRoom, []string{"r_u2"}) || len(peers) != 0 {
		t.Fatalf("friends %v members %v room %v peers %v", friends, members, inRoom, peers)
	}
	if _, ok := c.MaxSeqs("r_u1")[DirectKey("r_u0", "r_u1")]; ok {
		t.Fatal("the direct conversation with the deleted user is still there")
	}
	if err := c.CheckLogin(tok, "r_u0", 2); !errors.Is(err, ErrTokenUnknown) {
		t.Fatalf("the deleted user's token: %v", err)
	}
	o.mu.Lock()
	kicked := o.kicked
	o.mu.Unlock()
	if !kicked {
		t.Fatal("the deleted user's connection was not kicked")
	}
	if err := c.DeleteUser("r_u0"); !errors.Is(err, ErrUnknownUser) {
		t.Fatalf("deleted twice: %v", err)
	}
	if err := c.DeleteUser(c.AdminID()); !errors.Is(err, ErrBadArgs) {
		t.Fatalf("deleting the admin: %v", err)
	}
}

// A dismissed group and a deleted chatroom are gone with their
// conversations; their members stay.
func TestDismissGroupAndDeleteRoom(t *testing.T) {
	c := newCore(t, Faults{})
	if err := c.Register([]string{"r_u0", "r_u1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateGroup("r_g", "r_u0", []string{"r_u1"}); err != nil {
		t.Fatal(err)
	}
	if err := c.JoinRoom("r_room", "r_u0"); err != nil {
		t.Fatal(err)
	}
	mustSend(t, c, &Message{Conv: GroupKey("r_g"), Sender: "r_u0", Payload: []byte("hi")})
	if err := c.DismissGroup("r_g"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteRoom("r_room"); err != nil {
		t.Fatal(err)
	}
	if users, groups, rooms := c.Census("r_"); users != 2 || groups != 0 || rooms != 0 {
		t.Fatalf("census %d users %d groups %d rooms", users, groups, rooms)
	}
	joined, _ := c.JoinedGroups("r_u1")
	if len(joined) != 0 || len(c.MaxSeqs("r_u1")) != 0 {
		t.Fatalf("r_u1 still in %v, seqs %v", joined, c.MaxSeqs("r_u1"))
	}
	if _, err := c.Send(&Message{Conv: GroupKey("r_g"), Sender: "r_u0"}); !errors.Is(err, ErrUnknownGroup) {
		t.Fatalf("a send to the dismissed group: %v", err)
	}
	if err := c.DismissGroup("r_g"); !errors.Is(err, ErrUnknownGroup) {
		t.Fatalf("dismissed twice: %v", err)
	}
	if err := c.DeleteRoom("r_room"); !errors.Is(err, ErrUnknownGroup) {
		t.Fatalf("deleted twice: %v", err)
	}
}

// Deletions are in the state log: a restarted core has not brought back
// what was deleted, and what was not is as it was.
func TestStateLogReplaysDeletions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.log")
	c := loggedCore(t, path, nil, Faults{})
	users := []string{"r_u0", "r_u1", "r_u2"}
	if err := c.Register(users); err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"r_g0", "r_g1"} {
		if _, err := c.CreateGroup(g, "r_u1", []string{"r_u0", "r_u2"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.JoinRoom("r_room", "r_u0", "r_u1"); err != nil {
		t.Fatal(err)
	}
	mustSend(t, c, &Message{Conv: DirectKey("r_u0", "r_u2"), Sender: "r_u0", Payload: []byte("a")})
	mustSend(t, c, &Message{Conv: GroupKey("r_g1"), Sender: "r_u2", Payload: []byte("b")})
	for _, err := range []error{c.DismissGroup("r_g0"), c.DeleteRoom("r_room"), c.DeleteUser("r_u0")} {
		if err != nil {
			t.Fatal(err)
		}
	}
	want := stateOf(t, c, users, "r_g1", "r_room")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	again := loggedCore(t, path, nil, Faults{})
	if got := stateOf(t, again, users, "r_g1", "r_room"); got != want {
		t.Fatalf("after the replay:\n%s\nbefore:\n%s", got, want)
	}
	if u, g, r := again.Census("r_"); u != 2 || g != 1 || r != 0 {
		t.Fatalf("after the replay: %d users %d groups %d rooms", u, g, r)
	}
}
