package summary

import (
	"encoding/json"
	"strings"
	"testing"
)

// Users never online, login failures by cause and pushes after a pull add
// up over segments and show in the table; a summary written before them
// loads with none.
func TestLoginFailuresAndNotAttempted(t *testing.T) {
	var parts []Summary
	for i := 0; i < 2; i++ {
		var p Summary
		p.RunID, p.Segment = "r", []string{"0:1/2", "1/2:1"}[i]
		p.Users.Registered = 20
		p.Users.NeverOnline = int64(i + 1)
		p.Users.OnlineAfterRetry = 2
		p.Users.LoginFailures = &LoginCauses{Closed: 3, NoAnswer: int64(i)}
		p.Users.LoginRetries = &LoginCauses{Closed: 3}
		p.Deliveries.Expected, p.Deliveries.Received = 100, 100
		p.Deliveries.NotAttempted, p.Deliveries.PushedAfterPull = 10*int64(i+1), 4
		p.Deliveries.ByType = map[string]DeliveriesByType{"group": {Expected: 100, Received: 100, NotAttempted: 10 * int64(i+1), PushedAfterPull: 4}}
		p.Generator.UserRanges = [][2]uint32{{uint32(10 * i), uint32(10*i + 10)}}
		parts = append(parts, p)
	}
	if parts[0].Users.LoginFailures.Text() != "3 closed before the answer" {
		t.Fatalf("text %q", parts[0].Users.LoginFailures.Text())
	}
	m, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	u, d := m.Users, m.Deliveries
	if u.NeverOnline != 3 || u.OnlineAfterRetry != 4 || *u.LoginFailures != (LoginCauses{Closed: 6, NoAnswer: 1}) ||
		*u.LoginRetries != (LoginCauses{Closed: 6}) || d.NotAttempted != 30 || d.PushedAfterPull != 8 ||
		d.ByType["group"].NotAttempted != 30 || d.ByType["group"].PushedAfterPull != 8 || m.Integrity != 1 {
		t.Fatalf("merged users %+v deliveries %+v integrity %v", u, d, m.Integrity)
	}
	table := m.Table()
	for _, want := range []string{
		"| Login failures         | 7 failed (6 closed before the answer, 1 no answer in time); 6 tried again, 4 users online after a retry, 3 never online |",
		"| Never online           | 3 users never online (every login failed), 30 deliveries not attempted (in neither expected nor lost) |",
		"| Pushed after pull      | 8 (pulled after a seq gap or at login, then pushed as well: the push was late; not duplicates) |",
		"100% (all 200 expected deliveries arrived); not counted: 30 deliveries to the 3 users never online",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	var old Summary
	if err := json.Unmarshal([]byte(`{"run_id":"old","users":{"registered":3,"connect_errors":1},"deliveries":{"expected":5,"duplicates":1}}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Users.LoginFailures != nil || old.Users.NeverOnline != 0 || old.Deliveries.NotAttempted != 0 || old.Deliveries.PushedAfterPull != 0 {
		t.Fatalf("an old summary: %+v %+v", old.Users, old.Deliveries)
	}
	if tb := old.Table(); strings.Contains(tb, "Login failures") || strings.Contains(tb, "Never online") || strings.Contains(tb, "Pushed after pull") {
		t.Fatalf("an old summary's table shows rows it has no figures for:\n%s", tb)
	}
	// Written again, it has every field: zeros for what the old one lacked.
	old.Normalize()
	raw, _ := json.Marshal(old)
	for _, zero := range []string{`"never_online":0`, `"login_failures":{"closed":0`, `"not_attempted":0`, `"pushed_after_pull":0`} {
		if !strings.Contains(string(raw), zero) {
			t.Fatalf("%s not written: %s", zero, raw)
		}
	}
}
