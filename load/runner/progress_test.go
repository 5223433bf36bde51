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
