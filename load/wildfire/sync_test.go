package wildfire_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
	"github.com/imbench/imbench/load/wildfire"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
)

type counting struct {
	got    atomic.Int64
	kicked chan error
	slow   time.Duration // each arrival takes this long to handle
}

func (h *counting) Arrive(verify.Arrival) {
	h.got.Add(1)
	time.Sleep(h.slow)
}
func (h *counting) Closed(_ engine.Conn, err error, kicked bool) {
	if kicked {
		h.kicked <- err
	}
}

// A sync asked while MNs keep the pull chain busy returns once a pull
// reached the server's head: it does not wait for the traffic to stop.
func TestSyncReturnsUnderSteadyTraffic(t *testing.T) {
	syncUnderTraffic(t, reftest.WFOptions{}, 0)
}

// A receiver slower than the traffic is always a page behind the server's
// head; its sync still returns, once it reaches the head the server gave
// when the sync was asked. Pages of one message, arrivals taking 2 ms and
// a sender at about 2,000 messages a second make the lag certain.
func TestSyncReturnsWhenTheReceiverLags(t *testing.T) {
	syncUnderTraffic(t, reftest.WFOptions{MaxPullBytes: 1}, 2*time.Millisecond)
}

func syncUnderTraffic(t *testing.T, o reftest.WFOptions, slow time.Duration) {
	tg := reftest.StartWildfire(t, core.Faults{}, o)
	p := testPlan(t, "busy", `{"kind":"groups","groups":1,"members":2,"allOnline":true,"inFlight":1,"messages":1}`)
	d := newDriver(t, tg, p)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := d.Setup(ctx, func(string) {}); err != nil {
		t.Fatal(err)
	}
	rx := &counting{kicked: make(chan error, 1), slow: slow}
	recv, err := d.Connect(ctx, 1, rx)
	if err != nil {
		t.Fatal(err)
	}
	send, err := d.Connect(ctx, 0, &counting{kicked: make(chan error, 1)})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() { // about 2,000 messages a second, for as long as the test runs
		for n := uint32(1); n < 1<<20; {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			for range 4 {
				text := verify.AppendBody(nil, p.RunID, 0, 0, n, time.Now().UnixMicro(), 64)
				send.Send(plan.Msg{Sender: 0, Conv: 0, N: n}, text, 0, func(error) {})
				n++
			}
		}
	}()
	time.Sleep(300 * time.Millisecond)
	if rx.got.Load() == 0 {
		t.Fatal("nothing arrived while sending")
	}
	done := make(chan error, 1)
	began := time.Now()
	if err := recv.(engine.HeadSyncer).Sync(true, func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("sync still waiting after 15 s of steady traffic (%d arrived)", rx.got.Load())
	}
	t.Logf("sync answered in %s with messages flowing", time.Since(began))
}

// A second get_token for the user's platform class kicks its connection
// there and then (ROFL), as the real server does (wildfire.md §14).
func TestGetTokenKicksTheOlderClient(t *testing.T) {
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{KickDelay: 50 * time.Millisecond})
	p := testPlan(t, "kick", `{"kind":"pairs","pairs":1,"allOnline":true,"rate":1,"messages":1}`)
	d := newDriver(t, tg, p)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := d.Setup(ctx, func(string) {}); err != nil {
		t.Fatal(err)
	}
	h := &counting{kicked: make(chan error, 1)}
	if _, err := d.Connect(ctx, 0, h); err != nil {
		t.Fatal(err)
	}
	a := &wildfire.Admin{Base: tg.AdminURL, Secret: tg.Secret, HTTP: http.DefaultClient}
	if _, err := a.GetToken(ctx, p.UserID(0), "another-phone", 7); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-h.kicked:
		if err != wildfire.ErrKicked {
			t.Fatalf("kicked with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the older client was not kicked")
	}
}
