package engine_test

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// flakyHub fails the first logins of some users with the errors it is
// given, one per attempt; users with more errors than attempts never get
// online.
type flakyHub struct {
	*hub
	mu    sync.Mutex
	fails map[uint32][]error
	tries map[uint32][]int // the retry number of each attempt, as the context says
}

func (h *flakyHub) Connect(ctx context.Context, u uint32, hd engine.Handler) (engine.Conn, error) {
	h.mu.Lock()
	h.tries[u] = append(h.tries[u], engine.Retry(ctx))
	var err error
	if f := h.fails[u]; len(f) > 0 {
		err, h.fails[u] = f[0], f[1:]
	}
	h.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("login of %d: %w", u, err)
	}
	return h.hub.Connect(ctx, u, hd)
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// A first login that fails is tried again with the reconnect backoff, each
// failure and retry counted by its cause; a user whose attempts all fail,
// or whom the server refuses, is never online, and what it was owed is not
// attempted rather than lost.
func TestFirstLoginsAreRetriedAndCounted(t *testing.T) {
	p := buildPlan(t, `{"kind":"groups","groups":1,"members":7,"allOnline":true,"rate":100,"messages":4}`)
	m := p.Groups[0].Members // m[0] sends
	refused := fmt.Errorf("%w: CONNACK reason 2", engine.ErrLoginRefused)
	fh := &flakyHub{hub: &hub{p: p, conns: map[uint32]*fakeConn{}, seq: map[uint32]uint64{}, joined: map[uint32]map[uint32]bool{}},
		fails: map[uint32][]error{
			m[1]: {io.EOF, io.ErrUnexpectedEOF},                    // online at the third attempt
			m[2]: {timeoutErr{}},                                   // at the second
			m[3]: {io.EOF, io.EOF, io.EOF, io.EOF, io.EOF},         // never: 1 + 3 retries
			m[4]: {refused},                                        // never: not retried
			m[5]: {engine.ErrLoginNoAnswer, engine.ErrLoginClosed}, // the driver's own words
		},
		tries: map[uint32][]int{}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sh := engine.NewShared("retry", p, fh, engine.Options{LoginRetries: 3, ReconnectDelay: 10 * time.Millisecond,
		ReconnectCap: 20 * time.Millisecond, DrainQuiet: 100 * time.Millisecond})
	s := sh.NewSession(ctx, 0, uint32(p.Users))
	r := s.Login(plan.Immediate)
	if r.Attempted != 7 || r.Online != 5 || r.Failed != 2 || r.Retried != 3 || r.FirstErr == nil {
		t.Fatalf("login phase %+v", r)
	}
	s.Send(time.Now().Add(10*time.Millisecond), 5*time.Second)
	s.Drain()
	s.Close()
	tot := sh.Totals()
	closed, none, ref := int(engine.LoginClosed), int(engine.LoginNoAnswer), int(engine.LoginRefused)
	var wantFailed, wantRetried [verify.LoginCauses]int64
	wantFailed[closed], wantFailed[none], wantFailed[ref] = 2+4+1, 1+1, 1
	wantRetried[closed], wantRetried[none] = 2+3+1, 1+1
	if tot.LoginFailed != wantFailed || tot.LoginRetried != wantRetried || tot.ConnectErrors != verify.Causes(wantFailed) {
		t.Fatalf("failed %v retried %v connect errors %d; want %v and %v", tot.LoginFailed, tot.LoginRetried, tot.ConnectErrors, wantFailed, wantRetried)
	}
	if tot.LoginsRetried != 3 || tot.NeverOnline != 2 || tot.LoginsImmediate != 5 {
		t.Fatalf("%d online after a retry, %d never online, %d logins", tot.LoginsRetried, tot.NeverOnline, tot.LoginsImmediate)
	}
	if got := fh.tries[m[3]]; len(got) != 4 || got[0] != 0 || got[3] != 3 {
		t.Fatalf("the retries of a user that never got online: %v, want retry 0..3", got)
	}
	in, out := map[uint32]*verify.Inbox{}, map[uint32]*verify.Outbox{}
	for _, u := range s.Users() {
		in[u.Index()], out[u.Index()] = u.Inbox(), u.Outbox()
	}
	rec := verify.Reconcile(p, tot.Expected, in, out, 10)
	// 4 messages, owed to 6 receivers each; two of them were never online.
	k := verify.KindIndex(plan.Group)
	if tot.Expected[k] != 4*6 || rec.NeverOnline != 2 || rec.NotAttempted[k] != 4*2 || rec.Lost[k] != 0 || tot.Pushed[k]+tot.Pulled[k] != 4*4 {
		t.Fatalf("expected %d, never online %d, not attempted %d, lost %d, received %d", tot.Expected[k], rec.NeverOnline,
			rec.NotAttempted[k], rec.Lost[k], tot.Pushed[k]+tot.Pulled[k])
	}
}

// When every one of many first attempts fails, the target refuses everyone:
// no retries delay the run's end.
func TestNoRetriesWhenEveryLoginFails(t *testing.T) {
	p := buildPlan(t, `{"kind":"groups","groups":1,"members":12,"allOnline":true,"rate":100,"messages":1}`)
	fh := &flakyHub{hub: &hub{p: p, conns: map[uint32]*fakeConn{}, seq: map[uint32]uint64{}, joined: map[uint32]map[uint32]bool{}},
		fails: map[uint32][]error{}, tries: map[uint32][]int{}}
	for u := range uint32(p.Users) {
		fh.fails[u] = []error{io.EOF, io.EOF}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sh := engine.NewShared("down", p, fh, engine.Options{ReconnectDelay: 10 * time.Second})
	s := sh.NewSession(ctx, 0, uint32(p.Users))
	began := time.Now()
	r := s.Login(plan.Immediate)
	s.Close()
	if r.Online != 0 || r.Failed != 12 || time.Since(began) > 5*time.Second || s.Tally.LoginRetried[engine.LoginClosed].Load() != 0 {
		t.Fatalf("login phase %+v in %s, %d retries", r, time.Since(began), s.Tally.LoginRetried[engine.LoginClosed].Load())
	}
}
