package runner

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

func TestProgressEvery(t *testing.T) {
	for _, c := range []struct {
		set  string
		tty  bool
		want time.Duration
	}{{"", true, 5 * time.Second}, {"", false, 30 * time.Second}, {"off", true, 0}, {"2s", false, 2 * time.Second}} {
		if got, err := progressEvery(c.set, c.tty); err != nil || got != c.want {
			t.Errorf("IM_PROGRESS=%q tty %v: %v %v, want %v", c.set, c.tty, got, err, c.want)
		}
	}
	if _, err := progressEvery("soon", true); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("a bad IM_PROGRESS: %v", err)
	}
}

// A line is the window's rates, what is still awaited, the window's
// latency and the sending time left, all from the two snapshots.
func TestProgressLine(t *testing.T) {
	p, err := plan.Workload{Name: "t/p", Prefix: "p_", Classes: []json.RawMessage{json.RawMessage(`{"kind":"pairs","pairs":10,"totalRate":100,"messages":2000}`)}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := &Run{Plan: p, StartedAt: start, Segments: 1}
	single := verify.KindIndex(plan.Single)
	var prev, cur progressSnap
	prev.at, cur.at = start.Add(10*time.Second), start.Add(15*time.Second)
	cur.phase, cur.online, cur.planned, cur.sendFrom = "sending", 20, 20, start.Add(5*time.Second)
	prev.totals.Sent[single], cur.totals.Sent[single] = 500, 1000
	prev.totals.Acked[single], cur.totals.Acked[single] = 490, 990
	prev.totals.Pushed[single], cur.totals.Pushed[single] = 480, 980
	cur.totals.Expected[single] = 990
	cur.totals.Duplicates[single] = 2
	for range 99 {
		cur.e2e.Record(3000) // 3 ms
	}
	cur.e2e.Record(200_000) // 200 ms
	got := progressLine(r, prev, cur)
	for _, want := range []string{"0:15 sending", "online 20/20", "sent 100/s (plan 100/s)", "acked 100/s", "delivered 100/s",
		"awaited 10, duplicates 2", "e2e p50 ≤3.0 ms p99 ≤3.0 ms", "sending 3:10 more"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
}

// The plan's rate in a line is what it had due in the window: a class
// starting at 20 s adds nothing before it.
func TestProgressLineSaysThePlansOwnSeconds(t *testing.T) {
	p, err := plan.Workload{Name: "t/tl", Prefix: "tl_", Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"pairs","pairs":10,"totalRate":10,"duration":"40s"}`),
		json.RawMessage(`{"kind":"pairs","pairs":10,"totalRate":90,"startAt":"20s","stopAt":"40s"}`)}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := &Run{Plan: p, StartedAt: start, Segments: 1}
	var prev, cur progressSnap
	cur.phase, cur.sendFrom = "sending", start
	for _, c := range []struct {
		from, to time.Duration
		want     string
	}{{5 * time.Second, 15 * time.Second, "(plan 10/s)"}, {25 * time.Second, 35 * time.Second, "(plan 100/s)"}} {
		prev.at, cur.at = start.Add(c.from), start.Add(c.to)
		if got := progressLine(r, prev, cur); !strings.Contains(got, c.want) {
			t.Errorf("%v–%v: %q, want %q", c.from, c.to, got, c.want)
		}
	}
}

// Failed logins show in a line, by cause, with the retries and the users
// given up on, as soon as there is one; a run without any shows none.
func TestProgressLineLoginTrouble(t *testing.T) {
	p, err := plan.Workload{Name: "t/l", Prefix: "l_", Classes: []json.RawMessage{json.RawMessage(`{"kind":"pairs","pairs":2500,"totalRate":100,"messages":2000}`)}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := &Run{Plan: p, StartedAt: start, Segments: 1}
	var prev, cur progressSnap
	prev.at, cur.at = start, start.Add(5*time.Second)
	cur.phase, cur.online, cur.planned = "login", 4998, 5000
	cur.totals.LoginsImmediate = 4998
	if got := progressLine(r, prev, cur); strings.Contains(got, "logins") || !strings.Contains(got, "online 4,998/5,000") {
		t.Errorf("no failure yet: %q", got)
	}
	cur.totals.LoginFailed = [verify.LoginCauses]int64{1, 1, 0, 0}
	cur.totals.LoginRetried = [verify.LoginCauses]int64{2, 1, 0, 0}
	cur.totals.LoginsRetried = 1
	want := " · logins 4,998/5,000 (2 failed: 1 closed, 1 no answer; 3 retried, 1 online after a retry) · "
	if got := progressLine(r, prev, cur); !strings.Contains(got, want) {
		t.Errorf("missing %q in %q", want, got)
	}
	cur.totals.LoginFailed = [verify.LoginCauses]int64{0, 0, 1200, 3}
	cur.totals.LoginRetried = [verify.LoginCauses]int64{}
	cur.totals.LoginsRetried, cur.totals.NeverOnline = 0, 1203
	want = " · logins 4,998/5,000 (1,203 failed: 1,200 refused, 3 other; 1,203 never online) · "
	if got := progressLine(r, prev, cur); !strings.Contains(got, want) {
		t.Errorf("missing %q in %q", want, got)
	}
}

func TestGrouped(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 123456: "123,456", 1234567: "1,234,567", -4998: "-4,998"} {
		if got := grouped(n); got != want {
			t.Errorf("grouped(%d) = %q, want %q", n, got, want)
		}
	}
}
