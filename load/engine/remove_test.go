package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
)

// Every id is tried once; the failures are one line: how many, of what,
// and the first.
func TestRemoveEachCountsAndReportsInOneLine(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e"}
	var mu sync.Mutex
	tried := map[string]int{}
	n, absent, err := engine.RemoveEach(context.Background(), "groups", ids, 3, func(_ context.Context, id string) error {
		mu.Lock()
		tried[id]++
		mu.Unlock()
		switch id {
		case "c":
			return errors.New("code 248 no right")
		case "e":
			return fmt.Errorf("%w: code 1004", engine.ErrAbsent)
		}
		return nil
	})
	if n != 3 || absent != 1 || len(tried) != 5 {
		t.Fatalf("removed %d, absent %d, tried %v", n, absent, tried)
	}
	for id, k := range tried {
		if k != 1 {
			t.Errorf("%s tried %d times", id, k)
		}
	}
	if err == nil || err.Error() != "groups: 1 of 5 not removed: 1 failed (the first: code 248 no right)" {
		t.Fatalf("error %v", err)
	}
	if n, _, err := engine.RemoveEach(context.Background(), "users", nil, 4, nil); n != 0 || err != nil {
		t.Fatalf("nothing to remove: %d %v", n, err)
	}
}

// A server that refuses everything is not asked for every id: the removal
// stops after a bounded number of failures and says so.
func TestRemoveEachStopsWhenEverythingFails(t *testing.T) {
	ids := make([]string, 10000)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	var calls atomic.Int64
	n, _, err := engine.RemoveEach(context.Background(), "users", ids, 4, func(context.Context, string) error {
		calls.Add(1)
		return errors.New("connection refused")
	})
	if n != 0 || calls.Load() < 50 || calls.Load() > 50+4 {
		t.Fatalf("removed %d after %d calls", n, calls.Load())
	}
	if err == nil || !strings.HasPrefix(err.Error(), "users: 10000 of 10000 not removed: ") || !strings.Contains(err.Error(), " not tried (stopped after 50 failures)") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v", err)
	}
}

// A clean-up whose time runs out counts what it never tried as not
// removed, apart from what failed: the line agrees with the server.
func TestRemoveEachCountsWhatTimeLeftUntried(t *testing.T) {
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	var calls atomic.Int64
	n, _, err := engine.RemoveEach(ctx, "users", ids, 1, func(ctx context.Context, id string) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		switch calls.Add(1) {
		case 10:
			return errors.New("code 249 timeout")
		case 20:
			cancel(context.DeadlineExceeded)
			return ctx.Err()
		}
		return nil
	})
	if n != 18 {
		t.Fatalf("removed %d", n)
	}
	// The call cut short by the end counts as not tried, not as failed.
	want := "users: 82 of 100 not removed: 1 failed (the first: code 249 timeout), 81 not tried (context deadline exceeded)"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s…", err, want)
	}
}

// A record names the ids the plan's setup and joins use.
func TestCreatedNamesThePlansIDs(t *testing.T) {
	p, err := plan.Workload{Name: "t/created", Prefix: "r1_", BodySize: 64, Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"groups","groups":2,"members":3,"allOnline":true,"rate":1,"messages":1}`),
		json.RawMessage(`{"kind":"chatroom","members":3,"rate":1,"messages":1}`),
	}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	c := engine.CreatedBy(p)
	ids := c.UserIDs()
	if c.Users != p.Users || len(ids) != p.Users || len(c.Groups) != 2 || len(c.Rooms) != 1 {
		t.Fatalf("created %+v of a plan of %d users", c, p.Users)
	}
	for i, id := range ids {
		if id != p.UserID(uint32(i)) {
			t.Fatalf("user %d: %s, the plan's %s", i, id, p.UserID(uint32(i)))
		}
	}
	if c.Groups[1] != p.GroupID(1) || c.Rooms[0] != p.RoomID(0) || !strings.HasPrefix(c.Rooms[0], "r1_") {
		t.Fatalf("groups %v rooms %v", c.Groups, c.Rooms)
	}
}
