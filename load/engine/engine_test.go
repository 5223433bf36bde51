package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/latency"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// hub is an in-memory server for the engine's own tests: it fans a message
// out to the online members of one-to-one chats and groups and to those
// who joined a chatroom, and drops every dropRoom-th chatroom delivery to a
// room's senders (they joined before sending: no join races with a drop).
type hub struct {
	mu       sync.Mutex
	p        *plan.Plan
	conns    map[uint32]*fakeConn
	seq      map[uint32]uint64
	joined   map[uint32]map[uint32]bool
	dropRoom int
	roomSeen int
	dropped  int
	dropAll  bool         // deliver nothing
	maxSeqs  atomic.Int64 // MaxSeqs calls
}

type fakeConn struct {
	h     *hub
	u     uint32
	hd    engine.Handler
	alive atomic.Bool
}

func (h *hub) Setup(context.Context, func(string)) (engine.SetupReport, error) {
	return engine.SetupReport{}, nil
}

func (h *hub) Connect(_ context.Context, u uint32, hd engine.Handler) (engine.Conn, error) {
	c := &fakeConn{h: h, u: u, hd: hd}
	c.alive.Store(true)
	h.mu.Lock()
	h.conns[u] = c
	h.mu.Unlock()
	return c, nil
}

func (c *fakeConn) Send(m plan.Msg, text []byte, createMs int64, done func(error)) error {
	h := c.h
	h.mu.Lock()
	h.seq[m.Conv]++
	a := verify.Arrival{Conv: m.Conv, Seq: h.seq[m.Conv], Sender: int64(m.Sender), Text: text, CreateMs: createMs}
	room := h.p.Convs[m.Conv].Kind == plan.Room
	for _, r := range h.p.Members(m.Conv) {
		rc := h.conns[r]
		if r == m.Sender || rc == nil || !rc.alive.Load() || (room && !h.joined[m.Conv][r]) || h.dropAll {
			continue
		}
		if room && h.isRoomSender(m.Conv, r) {
			if h.roomSeen++; h.dropRoom > 0 && h.roomSeen%h.dropRoom == 0 {
				h.dropped++
				continue
			}
		}
		rc.hd.Arrive(a)
	}
	h.mu.Unlock()
	done(nil)
	return nil
}

func (h *hub) isRoomSender(conv, u uint32) bool {
	r := h.p.Rooms[h.p.Convs[conv].Group]
	for _, s := range r.Members[:r.Senders] {
		if s == u {
			return true
		}
	}
	return false
}

func (c *fakeConn) Join(conv uint32, done func(error)) error {
	c.h.mu.Lock()
	if c.h.joined[conv] == nil {
		c.h.joined[conv] = map[uint32]bool{}
	}
	c.h.joined[conv][c.u] = true
	c.h.mu.Unlock()
	done(nil)
	return nil
}

func (c *fakeConn) Pull(map[uint32][]uint64, bool, func(error)) error { return nil }
func (c *fakeConn) MaxSeqs(done func(map[uint32]uint64, error)) error {
	c.h.maxSeqs.Add(1)
	done(nil, nil)
	return nil
}
func (c *fakeConn) Ping() error { return nil }
func (c *fakeConn) Alive() bool { return c.alive.Load() }
func (c *fakeConn) Close(ended func(bool)) {
	c.alive.Store(false)
	ended(false)
}

func buildPlan(t *testing.T, classes ...string) *plan.Plan {
	t.Helper()
	w := plan.Workload{Name: "engine/test", Prefix: "e_"}
	for _, c := range classes {
		w.Classes = append(w.Classes, json.RawMessage(c))
	}
	p, err := w.Build()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Chatroom members who join while messages flow expect exactly what was
// sent after they joined; what the room drops is counted as missed, apart
// from the groups' deliveries, which stay exact.
func TestChatroomsExpectWhoWasPresent(t *testing.T) {
	p := buildPlan(t,
		`{"kind":"chatroom","rooms":2,"members":10,"senders":2,"joinRate":40,"rate":100,"messages":10}`,
		`{"kind":"groups","groups":2,"members":5,"allOnline":true,"rate":50,"messages":3}`)
	h := &hub{p: p, conns: map[uint32]*fakeConn{}, seq: map[uint32]uint64{}, joined: map[uint32]map[uint32]bool{}, dropRoom: 3}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sh := engine.NewShared("rooms", p, h, engine.Options{DrainQuiet: 200 * time.Millisecond})
	s := sh.NewSession(ctx, 0, uint32(p.Users))
	if r := s.Login(plan.Immediate); r.Failed != 0 {
		t.Fatal(r.FirstErr)
	}
	res := s.Send(time.Now().Add(20*time.Millisecond), 5*time.Second)
	s.Drain()
	s.Close()
	tot := sh.Totals()
	in, out := map[uint32]*verify.Inbox{}, map[uint32]*verify.Outbox{}
	for _, u := range s.Users() {
		in[u.Index()], out[u.Index()] = u.Inbox(), u.Outbox()
	}
	rec := verify.Reconcile(p, tot.Expected, in, out, 10)
	room := verify.RoomIndex
	// 40 room messages; had everyone been present, 9 receivers each.
	if res.Acked != 2*20+2*3 || tot.Expected[room] == 0 || tot.Expected[room] >= 40*9 {
		t.Fatalf("acked %d, room expected %d: the joins must overlap the sending", res.Acked, tot.Expected[room])
	}
	if h.dropped == 0 || rec.Lost[room] != int64(h.dropped) {
		t.Fatalf("the room dropped %d, the verifier missed %d", h.dropped, rec.Lost[room])
	}
	// A member the hub had let in before the member saw its join answered
	// gets messages sent just before: counted apart, neither expected nor
	// received.
	if got := tot.Pushed[room] + int64(h.dropped); got != tot.Expected[room] {
		t.Fatalf("room: pushed %d + dropped %d != expected %d (before join %d)", tot.Pushed[room], h.dropped, tot.Expected[room], tot.BeforeJoin)
	}
	if verify.Owed(rec.Lost) != 0 || verify.Owed(tot.Expected) != 2*3*4 {
		t.Fatalf("groups: lost %v expected %v", rec.Lost, tot.Expected)
	}
}

// costConn is a connection that does the SDK's login and accounts for it:
// the engine takes its figures over its own.
type costConn struct {
	*fakeConn
	dialed  time.Time
	synced  bool
	failing bool
}

func (c *costConn) LoginSync(context.Context, bool) error {
	c.synced = true
	if c.failing {
		return errors.New("a REST call failed")
	}
	return nil
}
func (c *costConn) Dialed() time.Time { return c.dialed }
func (c *costConn) Requests() int64   { return 7 }

type costHub struct{ *hub }

func (h costHub) Connect(ctx context.Context, u uint32, hd engine.Handler) (engine.Conn, error) {
	c, _ := h.hub.Connect(ctx, u, hd)
	return &costConn{fakeConn: c.(*fakeConn), dialed: time.Now().Add(-time.Second), failing: u == 0}, nil
}

// Every login that reaches online is counted with its time from the dial and
// its requests: the sync's by default, the connection's own when it counts
// them; a login whose sync failed is counted and marked.
func TestLoginCostIsCounted(t *testing.T) {
	p := buildPlan(t, `{"kind":"groups","groups":2,"members":3,"allOnline":true,"rate":50,"messages":1}`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := &hub{p: p, conns: map[uint32]*fakeConn{}, seq: map[uint32]uint64{}, joined: map[uint32]map[uint32]bool{}}
	sh := engine.NewShared("cost", p, h, engine.Options{})
	s := sh.NewSession(ctx, 0, uint32(p.Users))
	if r := s.Login(plan.Immediate); r.Failed != 0 {
		t.Fatal(r.FirstErr)
	}
	s.Close()
	l := &s.Logins
	if l.Count.Load() != int64(p.Users) || l.Requests.Load() != int64(p.Users) || l.Failed.Load() != 0 {
		t.Fatalf("plain logins: %d counted, %d requests, %d failed; want %d, one max-seq request each",
			l.Count.Load(), l.Requests.Load(), l.Failed.Load(), p.Users)
	}
	sh = engine.NewShared("cost2", p, costHub{h}, engine.Options{})
	s = sh.NewSession(ctx, 0, uint32(p.Users))
	if r := s.Login(plan.Immediate); r.Failed != 0 {
		t.Fatal(r.FirstErr)
	}
	s.Close()
	l = &s.Logins
	if l.Count.Load() != int64(p.Users) || l.Requests.Load() != 7*int64(p.Users) || l.Failed.Load() != 1 {
		t.Fatalf("accounted logins: %d counted, %d requests, %d failed; want %d, 7 each, 1 failed",
			l.Count.Load(), l.Requests.Load(), l.Failed.Load(), p.Users)
	}
	hist := latency.NewHistogram()
	l.Online.MergeInto(hist)
	if hist.Count() != int64(p.Users) || hist.QuantileMs(0.5) < 1000 {
		t.Fatalf("time to online: %d samples, p50 %.1f ms; want one a login, from the dial a second ago", hist.Count(), hist.QuantileMs(0.5))
	}
}

// emptyHub is a server that keeps nothing in a run's conversations before
// the run sends (WuKongIM): a first login then has nothing to sync.
type emptyHub struct{ *hub }

func (emptyHub) EmptyUntilSent() bool { return true }

// Syncs that can find nothing are not made: a first login before the run's
// first send, on a server that keeps nothing before it (unless the run is
// split over processes), and the drain's last sync once every expected
// delivery arrived. A login after the first send syncs; a drain short of
// its deliveries syncs every online user.
func TestSyncsThatFindNothingAreNotMade(t *testing.T) {
	p := buildPlan(t, `{"kind":"groups","groups":2,"members":3,"allOnline":true,"rate":50,"messages":1}`)
	users := int64(p.Users)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(d engine.Driver, h *hub, opts engine.Options) (login, drain, again int64, reason string) {
		opts.DrainQuiet = 200 * time.Millisecond
		sh := engine.NewShared("sync", p, d, opts)
		s := sh.NewSession(ctx, 0, uint32(users))
		if r := s.Login(plan.Immediate); r.Failed != 0 {
			t.Fatal(r.FirstErr)
		}
		login = h.maxSeqs.Load()
		s.Send(time.Now().Add(20*time.Millisecond), 5*time.Second)
		reason = s.Drain().Reason
		drain = h.maxSeqs.Load() - login
		s.Close()
		s = sh.NewSession(ctx, 0, uint32(users))
		if r := s.Login(plan.Immediate); r.Failed != 0 {
			t.Fatal(r.FirstErr)
		}
		again = h.maxSeqs.Load() - login - drain
		s.Close()
		return
	}
	newHub := func() *hub {
		return &hub{p: p, conns: map[uint32]*fakeConn{}, seq: map[uint32]uint64{}, joined: map[uint32]map[uint32]bool{}}
	}
	h := newHub()
	if login, drain, again, reason := run(emptyHub{h}, h, engine.Options{}); login != 0 || drain != 0 || again != users || reason != "complete" {
		t.Fatalf("empty server: %d login syncs, %d in a %s drain, %d logins after sending; want 0, 0 in a complete one, %d", login, drain, reason, again, users)
	}
	h = newHub()
	if login, _, _, _ := run(emptyHub{h}, h, engine.Options{Split: true}); login != users {
		t.Fatalf("empty server, split run: %d login syncs, want %d", login, users)
	}
	h = newHub()
	if login, drain, _, _ := run(h, h, engine.Options{}); login != users || drain != 0 {
		t.Fatalf("a server that may hold notices: %d login syncs, %d in a complete drain; want %d, 0", login, drain, users)
	}
	h = newHub()
	h.dropAll = true
	if _, drain, _, reason := run(emptyHub{h}, h, engine.Options{}); reason == "complete" || drain != users {
		t.Fatalf("nothing delivered: a %s drain made %d syncs, want one for each of %d online users", reason, drain, users)
	}
}

// noticeHub holds notices of its own in every conversation before the run
// sends (OpenIM's group notifications): its newest seqs count them.
type noticeHub struct {
	*hub
	pulls atomic.Int64 // Pull calls
}

type noticeConn struct {
	*fakeConn
	pulls *atomic.Int64
}

func (h *noticeHub) Connect(ctx context.Context, u uint32, hd engine.Handler) (engine.Conn, error) {
	c, _ := h.hub.Connect(ctx, u, hd)
	return &noticeConn{fakeConn: c.(*fakeConn), pulls: &h.pulls}, nil
}

func (c *noticeConn) MaxSeqs(done func(map[uint32]uint64, error)) error {
	c.h.maxSeqs.Add(1)
	c.h.mu.Lock()
	m := map[uint32]uint64{}
	for cv := range c.h.p.Convs {
		if slices.Contains(c.h.p.Members(uint32(cv)), c.u) {
			m[uint32(cv)] = c.h.seq[uint32(cv)]
		}
	}
	c.h.mu.Unlock()
	done(m, nil)
	return nil
}

func (c *noticeConn) Pull(_ map[uint32][]uint64, _ bool, done func(error)) error {
	c.pulls.Add(1)
	done(nil)
	return nil
}

// A first login before the run's first send asks the newest seqs and pulls
// none of what they count: the server's notices, which the run checks none
// of, and which no later push leaves as a gap to pull. A split run, whose
// other processes may have sent, pulls them, as does a first login after
// the run sent.
func TestNoticesBeforeTheRunAreNotPulled(t *testing.T) {
	p := buildPlan(t, `{"kind":"groups","groups":2,"members":3,"allOnline":true,"rate":50,"messages":2}`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, split := range []bool{false, true} {
		h := &hub{p: p, conns: map[uint32]*fakeConn{}, seq: map[uint32]uint64{}, joined: map[uint32]map[uint32]bool{}}
		for cv := range p.Convs {
			h.seq[uint32(cv)] = 2 // the group's creation and its members' joining
		}
		nh := noticeHub{hub: h}
		sh := engine.NewShared("notices", p, &nh, engine.Options{Split: split, DrainQuiet: 200 * time.Millisecond})
		s := sh.NewSession(ctx, 0, uint32(p.Users))
		if r := s.Login(plan.Immediate); r.Failed != 0 {
			t.Fatal(r.FirstErr)
		}
		atLogin := nh.pulls.Load()
		s.Send(time.Now().Add(20*time.Millisecond), 5*time.Second)
		reason := s.Drain().Reason
		s.Close()
		beforeAgain := nh.pulls.Load()
		s = sh.NewSession(ctx, 0, uint32(p.Users))
		if r := s.Login(plan.Immediate); r.Failed != 0 {
			t.Fatal(r.FirstErr)
		}
		s.Close()
		switch {
		case nh.pulls.Load()-beforeAgain < int64(p.Users):
			t.Fatalf("split %v: first logins after the run sent made %d pulls, want one at least for each of %d users",
				split, nh.pulls.Load()-beforeAgain, p.Users)
		case h.maxSeqs.Load() < int64(p.Users):
			t.Fatalf("split %v: %d newest-seq requests for %d logins", split, h.maxSeqs.Load(), p.Users)
		case !split && (beforeAgain != 0 || reason != "complete"):
			t.Fatalf("%d pulls (%d at login), a %s drain; want none, a complete one", beforeAgain, atLogin, reason)
		case split && atLogin < int64(p.Users):
			t.Fatalf("split run: %d pulls at login, want one at least for each of %d users", atLogin, p.Users)
		}
	}
}
