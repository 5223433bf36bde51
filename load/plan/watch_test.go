package plan

import (
	"math"
	"testing"
	"time"
)

// Watchers are marked, counted per conversation and never owed their own
// messages: Wildfire's shared watcher is in every group, a pair's watcher
// gets every sender's messages.
func TestWatchersAreCountedApart(t *testing.T) {
	p := build(t, workload(t,
		`{"kind":"groups","groups":4,"members":10,"senders":2,"shared":true,"watchers":1,"inFlight":1,"messages":3}`))
	if p.Watchers() != 1 || !p.IsWatcher(2) || p.IsWatcher(0) {
		t.Fatalf("watchers %d, user 2 %v", p.Watchers(), p.IsWatcher(2))
	}
	for c := range p.Convs {
		if w := p.ExpectedWatchers(Msg{Sender: 0, Conv: uint32(c), N: 1}); w != 1 {
			t.Fatalf("group %d owes its watcher %d", c, w)
		}
		if w := p.ExpectedWatchers(Msg{Sender: 2, Conv: uint32(c), N: 1}); w != 0 {
			t.Fatalf("the watcher's own message owed to watchers %d", w)
		}
	}
	q := build(t, workload(t, `{"kind":"pairs","senders":3,"receivers":4,"watchers":1,"totalRate":30,"messages":2}`))
	if q.Watchers() != 1 {
		t.Fatalf("pairs: %d watchers", q.Watchers())
	}
	if none := build(t, workload(t, `{"kind":"pairs","pairs":2,"rate":1,"messages":1}`)); none.Watchers() != 0 ||
		none.ExpectedWatchers(Msg{Conv: 0}) != 0 {
		t.Fatal("a plan without watchers owes them something")
	}
}

// BusiestSenderIn is an open stream's peak shared by its senders over the
// window, a closed stream's busiest sender's whole count, +Inf for one
// bounded by time only.
func TestBusiestSenderIn(t *testing.T) {
	open := build(t, workload(t, `{"kind":"pairs","pairs":10,"totalRate":50,"messages":5}`))
	if n := open.BusiestSenderIn(5 * time.Second); math.Abs(n-25) > 0.01 {
		t.Fatalf("10 senders sharing 50/s: %v each in 5 s", n)
	}
	closed := build(t, workload(t, `{"kind":"pairs","pairs":1,"inFlight":2,"messages":6}`))
	if n := closed.BusiestSenderIn(5 * time.Second); n != 6 {
		t.Fatalf("a closed pair of 6 messages: %v", n)
	}
	timed := build(t, workload(t, `{"kind":"pairs","pairs":1,"inFlight":2,"duration":"10s"}`))
	if n := timed.BusiestSenderIn(5 * time.Second); !math.IsInf(n, 1) {
		t.Fatalf("closed pacing bounded by time: %v", n)
	}
}
