package wildfire_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
	"github.com/imbench/imbench/load/wildfire"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
)

// A send the server answers after the client's timeout fails as
// unanswered, each one after its own wait and not before: the first one,
// and one sent while the first still waits, and one sent after both
// failed (the connection's one timer is armed again for it). The answers
// that come late after all change nothing.
func TestASendAnsweredTooLateFailsAsUnanswered(t *testing.T) {
	tg := reftest.StartWildfire(t, core.Faults{AckLate: 1, AckLateBy: 1500 * time.Millisecond, Seed: 1}, reftest.WFOptions{})
	p := testPlan(t, "late", `{"kind":"groups","groups":1,"members":2,"allOnline":true,"inFlight":4,"messages":3}`)
	const timeout = 300 * time.Millisecond
	d, err := wildfire.New(wildfire.Config{AdminURL: tg.AdminURL, MQTT: tg.MQTTAddr, Secret: tg.Secret, Timeout: timeout}, p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := d.Setup(ctx, func(string) {}); err != nil {
		t.Fatal(err)
	}
	c, err := d.Connect(ctx, 0, &counting{kicked: make(chan error, 1)})
	if err != nil {
		t.Fatal(err)
	}
	send := func(n uint32) (<-chan error, time.Time) {
		done := make(chan error, 2)
		at := time.Now()
		text := verify.AppendBody(nil, p.RunID, 0, 0, n, at.UnixMicro(), 64)
		if err := c.Send(plan.Msg{Sender: 0, Conv: 0, N: n}, text, 0, func(err error) { done <- err }); err != nil {
			t.Fatal(err)
		}
		return done, at
	}
	wait := func(n uint32, done <-chan error, at time.Time) {
		t.Helper()
		select {
		case err := <-done:
			took := time.Since(at)
			if !errors.Is(err, engine.ErrUnanswered) || took < timeout || took > timeout+700*time.Millisecond {
				t.Fatalf("send %d: %v after %s, want unanswered after %s", n, err, took, timeout)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("send %d: no outcome after 5 s", n)
		}
	}
	d1, at1 := send(1)
	time.Sleep(timeout / 2)
	d2, at2 := send(2)
	wait(1, d1, at1)
	wait(2, d2, at2)
	d3, at3 := send(3)
	wait(3, d3, at3)
	time.Sleep(2 * time.Second) // the late answers arrive
	for n, done := range []<-chan error{d1, d2, d3} {
		select {
		case err := <-done:
			t.Fatalf("send %d answered again: %v", n+1, err)
		default:
		}
	}
}
