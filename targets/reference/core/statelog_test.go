package core

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func loggedCore(tb testing.TB, path string, log *slog.Logger, f Faults) *Core {
	tb.Helper()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c, err := New(Config{Secret: "s", Faults: f, Log: log, StateLog: path}, NewMetrics())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

func mustSend(t *testing.T, c *Core, m *Message) *Message {
	t.Helper()
	out, err := c.Send(m)
	if err != nil {
		t.Fatalf("send %+v: %v", m, err)
	}
	return out
}

// stateOf is what a client can see of the core: members, relations,
// seqs and every message pulled back.
func stateOf(t *testing.T, c *Core, users []string, group, room string) string {
	t.Helper()
	var b strings.Builder
	members, err := c.Members(group)
	fmt.Fprintf(&b, "group %s %v %v\n", group, members, err)
	rm, err := c.RoomMembers(room)
	fmt.Fprintf(&b, "room %s %v %v last %d\n", room, rm, err, c.LastSeq(RoomKey(room)))
	fmt.Fprintf(&b, "registered %v\n", c.Registered(append(users, "nobody")))
	for _, u := range users {
		friends, _ := c.Friends(u)
		groups, _ := c.JoinedGroups(u)
		peers, _ := c.DirectPeers(u)
		fmt.Fprintf(&b, "%s friends %v groups %v peers %v seqs %v\n", u, friends, groups, peers, c.MaxSeqs(u))
		seqs := c.MaxSeqs(u)
		keys := slices.SortedFunc(maps.Keys(seqs), func(a, b ConvKey) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			p, err := c.Pull(u, k, 1, 1000, 1000)
			for _, m := range p.Msgs {
				fmt.Fprintf(&b, "  %v %d %s %s %d %v %q\n", m.Conv, m.Seq, m.Sender, m.ClientID, m.Time, m.System, m.Payload)
			}
			fmt.Fprintf(&b, "  end %d %v %v\n", p.EndSeq, p.AtEnd, err)
		}
	}
	return b.String()
}

// Everything a client could see comes back from the log, tokens included,
// and a second core goes on where the first stopped.
func TestStateLogReplaysWhatClientsSee(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.log")
	a := loggedCore(t, path, nil, Faults{})
	users := []string{"alice", "bob", "carol", "dave"}
	if err := a.Register(users); err != nil {
		t.Fatal(err)
	}
	if err := a.Befriend("alice", []string{"bob", "carol"}); err != nil {
		t.Fatal(err)
	}
	gid, err := a.CreateGroup("", "alice", []string{"bob", "carol"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AddMembers(gid, []string{"dave"}); err != nil {
		t.Fatal(err)
	}
	if err := a.RemoveMembers(gid, []string{"carol"}); err != nil {
		t.Fatal(err)
	}
	if err := a.JoinRoom("r1", "alice", "bob", "carol"); err != nil {
		t.Fatal(err)
	}
	if err := a.LeaveRoom("r1", "bob"); err != nil {
		t.Fatal(err)
	}
	kicked, _ := a.UserToken("bob", 1)
	bobTok, _ := a.UserToken("bob", 1)
	adminTok, _ := a.AdminToken("s", "imAdmin", 10)
	if err := a.SetToken("erin", 3, "chosen"); err != nil { // registers erin
		t.Fatal(err)
	}
	users = append(users, "erin")
	for i := range 3 {
		mustSend(t, a, &Message{Conv: GroupKey(gid), Sender: "alice", ClientID: fmt.Sprint("g", i), Payload: []byte{byte(i), 0, 0xff}})
		mustSend(t, a, &Message{Conv: DirectKey("bob", "alice"), Sender: "bob", Payload: []byte(fmt.Sprint("hi ", i))})
		mustSend(t, a, &Message{Conv: RoomKey("r1"), Sender: "carol", Payload: []byte("room")})
	}
	mustSend(t, a, &Message{Conv: GroupKey(gid), Sender: "imAdmin", System: true, Payload: []byte("notice")})
	want := stateOf(t, a, users, gid, "r1")
	a.Close()

	b := loggedCore(t, path, nil, Faults{})
	if got := stateOf(t, b, users, gid, "r1"); got != want {
		t.Fatalf("replayed:\n%s\nwant:\n%s", got, want)
	}
	for _, c := range []struct {
		tok, user string
		device    int
		want      error
	}{{bobTok, "bob", 1, nil}, {kicked, "bob", 1, ErrTokenKicked}, {"chosen", "erin", 3, nil}, {"other", "erin", 3, ErrTokenInvalid}} {
		if err := b.CheckLogin(c.tok, c.user, c.device); !errors.Is(err, c.want) {
			t.Fatalf("login of %s with %q: %v, want %v", c.user, c.tok, err, c.want)
		}
	}
	if err := b.RequireAdmin(adminTok); err != nil {
		t.Fatalf("admin token after replay: %v", err)
	}
	if u, d, ok := b.TokenOwner(bobTok); !ok || u != "bob" || d != 1 {
		t.Fatalf("owner of bob's token after replay: %q %d %v", u, d, ok)
	}

	// The seqs go on after the last, in a third life too.
	if m := mustSend(t, b, &Message{Conv: GroupKey(gid), Sender: "bob", Payload: []byte("after")}); m.Seq != 5 {
		t.Fatalf("group seq after replay %d, want 5", m.Seq)
	}
	if m := mustSend(t, b, &Message{Conv: RoomKey("r1"), Sender: "alice"}); m.Seq != 4 {
		t.Fatalf("room seq after replay %d, want 4", m.Seq)
	}
	gid2, err := b.CreateGroup("", "dave", nil)
	if err != nil || gid2 == gid {
		t.Fatalf("new group %q (%v) after %q", gid2, err, gid)
	}
	want = stateOf(t, b, users, gid, "r1")
	b.Close()
	c := loggedCore(t, path, nil, Faults{})
	if got := stateOf(t, c, users, gid, "r1"); got != want {
		t.Fatalf("third life:\n%s\nwant:\n%s", got, want)
	}
	if m, err := c.Members(gid2); err != nil || !reflect.DeepEqual(m, []string{"dave"}) {
		t.Fatalf("second group %v %v", m, err)
	}
}

// A message the lose fault dropped was never stored: it takes no seq and
// leaves nothing in the log.
func TestStateLogSkipsLostMessages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.log")
	a := loggedCore(t, path, nil, Faults{Lose: 1})
	if err := a.Register([]string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	mustSend(t, a, &Message{Conv: DirectKey("a", "b"), Sender: "a"})
	a.Close()
	b := loggedCore(t, path, nil, Faults{})
	if m := mustSend(t, b, &Message{Conv: DirectKey("a", "b"), Sender: "a"}); m.Seq != 1 {
		t.Fatalf("seq %d after a lost message, want 1", m.Seq)
	}
}

// A process killed in the middle of a write leaves a torn last record: it
// is cut off with a log line, and the log goes on cleanly after it.
func TestStateLogIgnoresATornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.log")
	a := loggedCore(t, path, nil, Faults{})
	if err := a.Register([]string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	mustSend(t, a, &Message{Conv: DirectKey("a", "b"), Sender: "a", Payload: []byte("one")})
	before, _ := os.Stat(path)
	mustSend(t, a, &Message{Conv: DirectKey("a", "b"), Sender: "a", Payload: []byte("two")})
	a.Close()
	full, _ := os.Stat(path)

	for _, cut := range []int64{1, frameHeader - 1, frameHeader + 1, full.Size() - before.Size() - 1} {
		t.Run(fmt.Sprint("cut ", cut), func(t *testing.T) {
			torn := filepath.Join(t.TempDir(), "state.log")
			raw, _ := os.ReadFile(path)
			os.WriteFile(torn, raw[:before.Size()+cut], 0o644)
			var logs bytes.Buffer
			b := loggedCore(t, torn, slog.New(slog.NewTextHandler(&logs, nil)), Faults{})
			if !strings.Contains(logs.String(), "torn last record") {
				t.Fatalf("no log line about the torn record: %s", logs.String())
			}
			if got := b.LastSeq(DirectKey("a", "b")); got != 1 {
				t.Fatalf("last seq %d, want 1", got)
			}
			if m := mustSend(t, b, &Message{Conv: DirectKey("a", "b"), Sender: "b", Payload: []byte("again")}); m.Seq != 2 {
				t.Fatalf("seq %d, want 2", m.Seq)
			}
			b.Close()
			c := loggedCore(t, torn, nil, Faults{})
			p, err := c.Pull("a", DirectKey("a", "b"), 1, 10, 10)
			if err != nil || len(p.Msgs) != 2 || string(p.Msgs[1].Payload) != "again" {
				t.Fatalf("pulled %v %v", p.Msgs, err)
			}
		})
	}

	// The torn record's bytes damaged but complete, as a write cut short
	// and followed by more: not a torn tail but damage, refused.
	raw, _ := os.ReadFile(path)
	raw[before.Size()+frameHeader+2] ^= 0xff
	raw = append(raw, raw[before.Size():]...)
	damaged := filepath.Join(t.TempDir(), "state.log")
	os.WriteFile(damaged, raw, 0o644)
	if _, err := New(Config{Secret: "s", Log: slog.New(slog.DiscardHandler), StateLog: damaged}, NewMetrics()); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("a damaged record inside the log: %v", err)
	}
}

// BenchmarkSend compares a group send with and without the state log
// (report the ratio of their ns/op).
func BenchmarkSend(b *testing.B) {
	for _, logged := range []bool{false, true} {
		b.Run(fmt.Sprint("statelog=", logged), func(b *testing.B) {
			path := ""
			if logged {
				path = filepath.Join(b.TempDir(), "state.log")
			}
			c := loggedCore(b, path, nil, Faults{})
			members := make([]string, 20)
			for i := range members {
				members[i] = fmt.Sprint("u", i)
			}
			if err := c.Register(members); err != nil {
				b.Fatal(err)
			}
			gid, err := c.CreateGroup("g", members[0], members[1:])
			if err != nil {
				b.Fatal(err)
			}
			for _, u := range members[:10] { // half online
				if err := c.Attach(NewSession(u, 1, "t", &discard{})); err != nil {
					b.Fatal(err)
				}
			}
			payload := bytes.Repeat([]byte("x"), 200)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := c.Send(&Message{Conv: GroupKey(gid), Sender: members[i%len(members)], ClientID: "c", Payload: payload}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type discard struct{}

func (discard) Deliver(*Push, time.Time) bool { return true }
func (discard) Kick()                         {}
func (discard) Close() bool                   { return true }
