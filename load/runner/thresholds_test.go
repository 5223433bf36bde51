package runner

import (
	"testing"
	"time"

	"github.com/imbench/imbench/internal/latency"
	"github.com/imbench/imbench/internal/summary"
)

func TestThresholdsReadTheRunsFigures(t *testing.T) {
	h := latency.NewHistogram()
	for us := int64(1000); us <= 100000; us += 1000 { // 1..100 ms
		h.Record(us)
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1000, 0)
	s := summary.Summary{StartedAt: start, EndedAt: start.Add(10 * time.Second), Integrity: 0.97,
		Histograms: map[string]latency.Encoded{"e2e": enc}}
	s.Deliveries.Expected, s.Deliveries.Lost, s.Deliveries.Duplicates = 100, 3, 0
	s.Deliveries.ByType = map[string]summary.DeliveriesByType{"group": {Lost: 3}, "single": {}}
	s.Latency.E2E = summary.LatencySummary{Count: 100, P99: 99, Max: 100}
	for expr, want := range map[string]bool{
		"lost count==0": false, "lost count<=3": true, "lost rate<0.5": true, "duplicates count==0": true,
		"lost{conv_type:single} count==0": true, "lost{conv_type:group} count==0": false,
		"integrity rate>0.99": false, "integrity rate>=0.97": true,
		"e2e_latency p(99)<100": true, "e2e_latency p(50)<10": false, "e2e_latency max<=101": true, "e2e_latency avg<60": true,
		"e2e_p99 value<1000": true, "e2e_max value<50": false,
		"ack_latency p(99)<1": true, // no samples: nothing to fail, as k6
	} {
		metric, ex, _ := cut(expr)
		rs, err := CheckThresholds(map[string]Expressions{metric: {ex}}, &s)
		if err != nil || len(rs) != 1 || rs[0].Passed != want {
			t.Errorf("%s: %+v %v, want passed=%v", expr, rs, err, want)
		}
	}
	for _, bad := range []string{"lost count=0", "lost avg<1", "integrity count==0", "e2e_latency count<1", "nope count==0",
		"e2e_latency p(150)<1", "sent{conv_type:group} count==0", "e2e_latency{conv_type:group} p(99)<1", "lost min<1"} {
		metric, ex, _ := cut(bad)
		if _, err := parseThreshold(metric, ex); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func cut(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// {inflight:N} reads the classes whose senders had N messages in flight:
// wukongim/ordering fails on disorder with 1 in flight and reports it with
// 16.
func TestThresholdsFilterByInFlight(t *testing.T) {
	var s summary.Summary
	s.Deliveries.OutOfOrder, s.Deliveries.Duplicates, s.Deliveries.Received = 41, 1, 10000
	s.Deliveries.ByClass = []summary.DeliveriesByClass{{Class: 1, Kind: "pairs", InFlight: 1, Received: 5000},
		{Class: 2, Kind: "pairs", InFlight: 16, Received: 5000, OutOfOrder: 41, Duplicates: 1},
		{Class: 3, Kind: "chatroom", InFlight: 1, Received: 700}} // left out, as the deliveries' counters leave rooms
	for expr, want := range map[string]bool{
		"out_of_order{inflight:1} count==0": true, "out_of_order{inflight:16} count==0": false,
		"out_of_order{inflight:16} count==41": true, "out_of_order count==0": false,
		"duplicates{inflight:1} count==0": true, "duplicates{inflight:16} count<1": false,
		"deliveries{inflight:1} count==5000": true,
		"out_of_order{inflight:4} count>0":   true, // no class with 4 in flight: no samples
	} {
		metric, ex, _ := cut(expr)
		rs, err := CheckThresholds(map[string]Expressions{metric: {ex}}, &s)
		if err != nil || len(rs) != 1 || rs[0].Passed != want {
			t.Errorf("%s: %+v %v, want passed=%v", expr, rs, err, want)
		}
	}
	s.Deliveries.ByClass[0].OutOfOrder = 3 // disorder with 1 in flight fails the run
	rs, err := CheckThresholds(map[string]Expressions{"out_of_order{inflight:1}": {"count==0"}}, &s)
	if err != nil || rs[0].Passed || rs[0].Actual != 3 {
		t.Fatalf("%+v %v", rs, err)
	}
	for _, bad := range []string{"lost{inflight:1} count==0", "e2e_latency{inflight:1} p(99)<1", "out_of_order{inflight:0} count==0",
		"out_of_order{inflight:x} count==0", "out_of_order{in_flight:1} count==0"} {
		metric, ex, _ := cut(bad)
		if _, err := parseThreshold(metric, ex); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
