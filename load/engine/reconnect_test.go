package engine

import (
	"context"
	"testing"
	"time"
)

func TestBackoffDoublesToItsCapWithJitter(t *testing.T) {
	base, ceiling := 100*time.Millisecond, time.Second
	for n, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 30: time.Second} {
		seen := map[time.Duration]bool{}
		for range 200 {
			d := backoff(n, base, ceiling)
			if d < want/2 || d > want {
				t.Fatalf("attempt %d waited %s, outside %s..%s", n, d, want/2, want)
			}
			seen[d] = true
		}
		if len(seen) < 10 {
			t.Fatalf("attempt %d: %d distinct waits in 200: no jitter", n, len(seen))
		}
	}
}

func TestGatewayMovesOnEachAttempt(t *testing.T) {
	gws := []string{"a", "b", "c"}
	ctx := context.Background()
	if GatewayFor(ctx, gws, 4) != "b" || GatewayFor(WithAttempt(ctx, 1), gws, 4) != "c" || GatewayFor(WithAttempt(ctx, 2), gws, 4) != "a" {
		t.Fatal("a reconnect attempt does not move to the next gateway")
	}
	if GatewayFor(WithRetry(ctx, 1), gws, 4) != "c" || Attempt(WithRetry(ctx, 1)) != 0 {
		t.Fatal("a first login's retry does not move to the next gateway, or passes for a reconnect")
	}
}

func TestOutagesSpanFirstDropToLastReturn(t *testing.T) {
	var o outages
	t0 := time.Unix(1000, 0)
	o.drop(t0)
	o.drop(t0.Add(100 * time.Millisecond))
	o.back(t0.Add(1200*time.Millisecond), true)
	if o.down != 1 || len(o.done) != 0 {
		t.Fatalf("one user still down (%d), yet %d windows closed", o.down, len(o.done))
	}
	o.back(t0.Add(2500*time.Millisecond), false)
	o.drop(t0.Add(10 * time.Second))
	o.back(t0.Add(11*time.Second), true)
	if len(o.done) != 2 {
		t.Fatalf("%d windows, want 2", len(o.done))
	}
	w := o.done[0]
	if w.Dropped != 2 || w.Reconnects != 1 || w.GaveUp != 1 || w.End.Sub(w.Start) != 2500*time.Millisecond ||
		len(w.ReconnectsPerSecond) != 2 || w.ReconnectsPerSecond[1] != 1 {
		t.Fatalf("first window %+v", w)
	}
}

func TestOutagesKeepTheLargestWithinBounds(t *testing.T) {
	sh := &Shared{}
	o := &sh.outages
	t0 := time.Unix(1000, 0)
	for i := range maxOutages + 20 {
		at := t0.Add(time.Duration(i) * time.Second)
		n := 1
		if i == 7 {
			n = 50
		}
		for range n {
			o.drop(at)
		}
		for range n {
			o.back(at.Add(time.Millisecond), true)
		}
	}
	ws, omitted := sh.Outages()
	if len(ws) != maxOutages || omitted != 20 {
		t.Fatalf("%d windows kept, %d omitted", len(ws), omitted)
	}
	found := false
	for i, w := range ws {
		found = found || w.Dropped == 50
		if i > 0 && w.Start.Before(ws[i-1].Start) {
			t.Fatal("windows not in time order")
		}
	}
	if !found {
		t.Fatal("the storm's window was dropped for a small one")
	}
}
