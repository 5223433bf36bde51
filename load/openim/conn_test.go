package openim_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/openim"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/openim"
)

type recorder struct {
	mu     sync.Mutex
	closed chan struct{}
	kicked bool
	err    error
	got    []verify.Arrival
}

func newRecorder() *recorder { return &recorder{closed: make(chan struct{})} }

func (r *recorder) Arrive(a verify.Arrival) {
	r.mu.Lock()
	r.got = append(r.got, a)
	r.mu.Unlock()
}

func (r *recorder) Closed(_ engine.Conn, err error, kicked bool) {
	r.mu.Lock()
	r.err, r.kicked = err, kicked
	r.mu.Unlock()
	close(r.closed)
}

func setup(t *testing.T, cfg func(*openim.Config)) (*reftest.Target, *openim.Driver) {
	t.Helper()
	tg := reftest.Start(t, core.Faults{})
	p := tinyPlan(t)
	c := openim.Config{APIURL: tg.APIURL, WSURL: tg.WSURL, Secret: tg.Secret, Gzip: true}
	if cfg != nil {
		cfg(&c)
	}
	d, err := openim.New(c, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Setup(context.Background(), func(string) {}); err != nil {
		t.Fatal(err)
	}
	return tg, d
}

func TestLoginRefusalsCarryTheErrCode(t *testing.T) {
	for _, msgResp := range []bool{false, true} {
		name := map[bool]string{false: "http body", true: "text frame"}[msgResp]
		t.Run(name, func(t *testing.T) {
			_, d := setup(t, func(c *openim.Config) { c.MsgResp = msgResp })
			ctx := context.Background()
			_, err := d.DialToken(ctx, 0, "not-a-token", newRecorder())
			var le *openim.LoginError
			if !errors.As(err, &le) || le.Code != 1503 {
				t.Fatalf("malformed token: %v, want errCode 1503", err)
			}
			_, err = d.DialToken(ctx, 0, strings.Repeat("ab", 24), newRecorder())
			if !errors.As(err, &le) || le.Code != 1507 {
				t.Fatalf("unknown token: %v, want errCode 1507", err)
			}
			tok, err := d.Token(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			if _, err = d.DialToken(ctx, 0, tok, newRecorder()); !errors.As(err, &le) || le.Code != 1502 {
				t.Fatalf("another user's token: %v, want errCode 1502", err)
			}
			c, err := d.Connect(ctx, 0, newRecorder())
			if err != nil {
				t.Fatalf("valid login: %v", err)
			}
			if closeConn(t, c) {
				t.Fatal("a goodbye the target answered counted as a drop")
			}
		})
	}
}

func TestSecondLoginKicksTheFirst(t *testing.T) {
	tg, d := setup(t, nil)
	ctx := context.Background()
	first := newRecorder()
	c1, err := d.Connect(ctx, 0, first)
	if err != nil {
		t.Fatal(err)
	}
	defer closeConn(t, c1)
	// The gateway attaches a session after the upgrade answer, as
	// open-im-server's register channel does: wait for it, or the second
	// login may attach first and be the one kicked.
	waitCounter(t, tg, "imbench_target_ws_logins_total", 1)
	// A second driver (another SDK instance) logs the same user and
	// platform in with a fresh token: OpenIM's policy 1 kicks the first.
	d2, _ := openim.New(openim.Config{APIURL: tg.APIURL, WSURL: tg.WSURL, Secret: tg.Secret}, tinyPlan(t))
	c2, err := d2.Connect(ctx, 0, newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	defer closeConn(t, c2)
	select {
	case <-first.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("first connection was not closed")
	}
	if !first.kicked || !errors.Is(first.err, openim.ErrKicked) {
		t.Fatalf("closed with kicked=%v err=%v", first.kicked, first.err)
	}
	// Its token was kicked too: logging in with it again is refused (1506),
	// and Connect recovers with a fresh token.
	c3, err := d.Connect(ctx, 0, newRecorder())
	if err != nil {
		t.Fatalf("reconnect after kick: %v", err)
	}
	closeConn(t, c3)
}

// closeConn closes c and waits for the end: whether it was dropped.
func closeConn(t *testing.T, c engine.Conn) bool {
	t.Helper()
	got := make(chan bool, 1)
	c.Close(func(dropped bool) { got <- dropped })
	select {
	case d := <-got:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("Close never ended")
		return false
	}
}

// A drop that beats our goodbye is a drop; an answered goodbye is not. The
// target counts a drop only when it ended the connection first, so the
// two counts agree however close the race is.
func TestCloseTellsADropFromAGoodbye(t *testing.T) {
	tg, d := setup(t, nil)
	ctx := context.Background()
	c, err := d.Connect(ctx, 0, newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	if closeConn(t, c) {
		t.Fatal("answered goodbye counted as a drop")
	}
	rec := newRecorder()
	c, err = d.Connect(ctx, 1, rec)
	if err != nil {
		t.Fatal(err)
	}
	// The target attaches a login just after the handshake: try for a while.
	for i := 0; tg.Core.Drop(10) == 0; i++ {
		if i == 100 {
			t.Fatal("the target never held the connection")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !closeConn(t, c) {
		t.Fatal("a connection the target dropped was not reported as dropped")
	}
}

// tinyPlan is three users; user 0 befriends the other two.
func tinyPlan(t *testing.T) *plan.Plan {
	t.Helper()
	p, err := plan.Integration{Name: "t", Users: 3, SuperUsers: 1, LoginRatio: 1, SingleMessages: 1, Rate: 10}.Build()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWrongSecretAndDownTarget(t *testing.T) {
	tg := reftest.Start(t, core.Faults{})
	p := tinyPlan(t)
	d, _ := openim.New(openim.Config{APIURL: tg.APIURL, WSURL: tg.WSURL, Secret: "wrong"}, p)
	if err := d.Preflight(context.Background()); err == nil || openim.Code(err) != wire.CodeNoPermission ||
		!strings.Contains(err.Error(), "rejected the admin secret") {
		t.Fatalf("wrong secret: %v", err)
	}
	d, _ = openim.New(openim.Config{APIURL: "http://127.0.0.1:1", WSURL: tg.WSURL, Secret: "x"}, p)
	if err := d.Preflight(context.Background()); err == nil || !strings.Contains(err.Error(), "not reachable") {
		t.Fatalf("down target: %v", err)
	}
}

// Drops racing goodbyes: every connection the target says it dropped is
// reported dropped by Close, and no other.
func TestDropsRacingGoodbyesCountTheSame(t *testing.T) {
	tg, d := setup(t, func(c *openim.Config) {})
	ctx := context.Background()
	for round := range 8 {
		var conns []engine.Conn
		for u := range uint32(3) {
			c, err := d.Connect(ctx, u, newRecorder())
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		targetDrops := make(chan int)
		// The drops start a little later each round: from before the
		// goodbyes to after them.
		go func() {
			time.Sleep(time.Duration(round) * 25 * time.Microsecond)
			n := 0
			for range 20 {
				n += tg.Core.Drop(1)
				time.Sleep(20 * time.Microsecond)
			}
			targetDrops <- n
		}()
		var wg sync.WaitGroup
		var mu sync.Mutex
		ours := 0
		for _, c := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if closeConn(t, c) {
					mu.Lock()
					ours++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		theirs := <-targetDrops
		t.Logf("round %d: %d of %d dropped", round, theirs, len(conns))
		if theirs != ours {
			t.Fatalf("round %d: the target dropped %d connections, Close reported %d", round, theirs, ours)
		}
	}
}

// waitCounter waits (at most 5 s) until the target's counter reaches want.
func waitCounter(t *testing.T, tg *reftest.Target, name string, want float64) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); tg.Counter(t, name) < want; {
		if time.Now().After(end) {
			t.Fatalf("%s stayed below %v", name, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
