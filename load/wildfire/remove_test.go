package wildfire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
	"github.com/imbench/imbench/load/wildfire"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
)

// closeWatch is a handler that only tells when its connection ends.
type closeWatch chan bool

func (closeWatch) Arrive(verify.Arrival)                        {}
func (w closeWatch) Closed(_ engine.Conn, _ error, kicked bool) { w <- kicked }

// A run's teardown leaves the target with none of its users, groups or
// chatrooms, the connection of a user still logged in kicked; asked again
// (clean-target after a teardown), it succeeds and removes nothing new.
func TestRemoveLeavesNoneOfTheRun(t *testing.T) {
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{KickDelay: 50 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := plan.Workload{Name: "wildfire/remove", Prefix: "rm_", BodySize: 64, Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"groups","groups":2,"members":4,"allOnline":true,"rate":1,"messages":1}`),
		json.RawMessage(`{"kind":"chatroom","members":3,"rate":1,"messages":1}`),
	}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	tgt := engine.Target{Name: "reference", System: "wildfire",
		Endpoints: map[string]string{"wildfire_admin": tg.AdminURL, "wildfire_mqtt": tg.MQTTAddr},
		Options:   map[string]any{"secret": tg.Secret}}
	_, proto, err := tgt.Open()
	if err != nil {
		t.Fatal(err)
	}
	d, err := proto.Driver(p, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Setup(ctx, func(string) {}); err != nil {
		t.Fatal(err)
	}
	users, groups, rooms := tg.Core.Census(p.Prefix)
	if users != p.Users || groups != 2 || rooms != 1 {
		t.Fatalf("after setup: %d users %d groups %d rooms", users, groups, rooms)
	}
	watch := make(closeWatch, 1)
	if _, err := d.Connect(ctx, 0, watch); err != nil {
		t.Fatal(err)
	}

	rm, err := proto.(engine.Remover).Remove(ctx, engine.CreatedBy(p))
	if err != nil {
		t.Fatal(err)
	}
	if rm.Users != p.Users || rm.Groups != 2 || rm.Rooms != 1 || len(rm.Kept) != 2 {
		t.Fatalf("removal %+v", rm)
	}
	if users, groups, rooms := tg.Core.Census(p.Prefix); users+groups+rooms != 0 {
		t.Fatalf("after the removal: %d users %d groups %d rooms", users, groups, rooms)
	}
	select {
	case kicked := <-watch:
		if !kicked {
			t.Fatal("the destroyed user's connection closed without a kick")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the destroyed user's connection is still open")
	}
	for i := 0; tg.Front.OnlineUsers() != 0; i++ {
		if i == 100 {
			t.Fatalf("%d users online", tg.Front.OnlineUsers())
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The server answers a destroy of any user id 0: a user already gone
	// is counted absent by its lookup, not removed again.
	again, err := proto.(engine.Remover).Remove(ctx, engine.CreatedBy(p))
	if err != nil || again.Groups != 0 || again.GroupsAbsent != 2 || again.Users != 0 || again.UsersAbsent != p.Users {
		t.Fatalf("a second removal: %+v %v", again, err)
	}
}

// A server that removes what it is asked and answers some removals 249
// "timeout" (a real Wildfire behind did): each is looked up again, and
// found gone, counted removed, not failed.
func TestRemoveChecksATimedOutRemoval(t *testing.T) {
	removeThroughTimeouts(t, reftest.WFOptions{AdminTimeout: 3}, "rt_")
}

// A removal answered 249 and done only later than its first rechecks (the
// real server's backlog) is looked up again once the clean-up's other
// removals are done, and counted removed when the server no longer has it.
func TestRemoveWaitsForARemovalTheServerDoesLate(t *testing.T) {
	wildfire.QuickRechecks(t, 50*time.Millisecond)
	removeThroughTimeouts(t, reftest.WFOptions{AdminTimeout: 3, AdminLate: 1500 * time.Millisecond}, "rl_")
}

// A server that times out every third removal and does it only an hour
// later: each such removal is looked up again and, still there when the
// clean-up ends, counted left; the error line's count and the removal's
// are what the target still holds, and no timeout counted as a failure.
func TestRemoveCountsWhatTheServerStillHas(t *testing.T) {
	wildfire.QuickRechecks(t, 50*time.Millisecond)
	t.Cleanup(engine.SetRemoveSettle(300*time.Millisecond, 100*time.Millisecond))
	tg, p, proto := setUpGroups(t, reftest.WFOptions{AdminTimeout: 3, AdminLate: time.Hour}, "rs_")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rm, err := proto.(engine.Remover).Remove(ctx, engine.CreatedBy(p))
	users, groups, _ := tg.Core.Census(p.Prefix)
	if users == 0 || groups == 0 || rm.UsersLeft != users || rm.GroupsLeft != groups || rm.Users+rm.UsersLeft != p.Users || rm.Groups+rm.GroupsLeft != 4 {
		t.Fatalf("removal %+v, the target holds %d users %d groups", rm, users, groups)
	}
	for _, want := range []string{fmt.Sprintf("users: %d of %d still on the server by its lookup after the clean-up: %d timed out", users, p.Users, users),
		fmt.Sprintf("groups: %d of 4 still on the server", groups)} {
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "failed") {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

// setUpGroups starts a Wildfire target with o and sets up 4 groups of 4.
func setUpGroups(t *testing.T, o reftest.WFOptions, prefix string) (*reftest.WFTarget, *plan.Plan, engine.Protocol) {
	t.Helper()
	tg := reftest.StartWildfire(t, core.Faults{}, o)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := plan.Workload{Name: "wildfire/remove", Prefix: prefix, BodySize: 64, Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"groups","groups":4,"members":4,"allOnline":true,"rate":1,"messages":1}`),
	}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	tgt := engine.Target{Name: "reference", System: "wildfire",
		Endpoints: map[string]string{"wildfire_admin": tg.AdminURL, "wildfire_mqtt": tg.MQTTAddr},
		Options:   map[string]any{"secret": tg.Secret}}
	_, proto, err := tgt.Open()
	if err != nil {
		t.Fatal(err)
	}
	d, err := proto.Driver(p, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := d.Setup(ctx, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	// Setup's writes the target answered 249 were made again, counted and said.
	if o.AdminTimeout > 0 && (rep.WritesRedone == 0 || len(rep.Warnings) != 1 ||
		!strings.Contains(rep.Warnings[0], fmt.Sprintf("answered %d of setup's group writes with a timeout (249)", rep.WritesRedone))) {
		t.Fatalf("setup through timeouts: %+v", rep)
	}
	return tg, p, proto
}

// removeThroughTimeouts sets up 4 groups of 4 on a target answering every
// third removal 249, removes them, and expects everything counted removed
// and gone from the target.
func removeThroughTimeouts(t *testing.T, o reftest.WFOptions, prefix string) {
	t.Helper()
	tg, p, proto := setUpGroups(t, o, prefix)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rm, err := proto.(engine.Remover).Remove(ctx, engine.CreatedBy(p))
	if err != nil {
		t.Fatalf("%v (removal %+v)", err, rm)
	}
	timeouts := tg.Counter(t, "imbench_target_fault_admin_timeouts_total")
	if rm.Users != p.Users || rm.Groups != 4 || rm.UsersAbsent+rm.GroupsAbsent != 0 || timeouts < 5 {
		t.Fatalf("removal %+v after %v answers of 249", rm, timeouts)
	}
	if users, groups, _ := tg.Core.Census(p.Prefix); users+groups != 0 {
		t.Fatalf("after the removal: %d users %d groups", users, groups)
	}
}

// Setup's admin writes on a server behind: it answers some group
// creations and member adds 249 "timeout" and does them all the same.
// Each is made again; a creation answered "already exists" after its
// timeout was done. Every other write here times out.
func TestSetupWritesThroughTimeouts(t *testing.T) {
	wildfire.QuickRechecks(t, 50*time.Millisecond)
	for _, late := range []time.Duration{0, 300 * time.Millisecond} { // a removal's delay changes nothing here
		tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{AdminTimeout: 2, AdminLate: late})
		a := &wildfire.Admin{Base: tg.AdminURL, Secret: tg.Secret, HTTP: &http.Client{Timeout: 5 * time.Second}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, u := range []string{"o", "m1", "m2", "p"} {
			if err := a.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		// Writes 1 (g made), 2 (249: m2 added) and 3 (m2 again), then 4
		// (249: h made) and 5 (h again: already exists).
		if err := a.CreateGroup(ctx, "g", []string{"o", "m1"}); err != nil {
			t.Fatal(err)
		}
		if err := a.AddMembers(ctx, "g", "o", []string{"m2"}); err != nil {
			t.Fatalf("late %s: add: %v", late, err)
		}
		if err := a.CreateGroup(ctx, "h", []string{"p", "o"}); err != nil {
			t.Fatalf("late %s: create: %v", late, err)
		}
		g, _ := tg.Core.Members("g")
		h, _ := tg.Core.Members("h")
		if n := tg.Counter(t, "imbench_target_fault_admin_timeouts_total"); n != 2 || len(g) != 3 || len(h) != 2 {
			t.Fatalf("late %s: %v timeouts; members g %v, h %v", late, n, g, h)
		}
	}
}
