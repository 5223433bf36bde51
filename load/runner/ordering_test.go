package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/summary"
	_ "github.com/imbench/imbench/load/wukongim"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
)

// runWuKongIM runs a scenario against tg and returns its exit code, what
// it printed and its summary.
func runWuKongIM(t *testing.T, tg *reftest.WKTarget, script, runID string, env ...string) (int, string, summary.Summary) {
	t.Helper()
	results := t.TempDir()
	e := map[string]string{"IM_PROTOCOL": "wukongim", "IM_SECRET": tg.Secret, "IM_WUKONGIM_API_URL": tg.APIURL,
		"IM_WUKONGIM_TCP_URL": tg.TCPAddr, "IM_WUKONGIM_WS_URL": tg.WSURL, "IM_RESULTS_DIR": results, "IM_DRAIN_QUIET": "1s"}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		e[k] = v
	}
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pr, err := Prepare(ctx, Config{Script: script, Env: e, RunID: runID, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	code := pr.Execute(ctx)
	s, err := summary.Load(filepath.Join(results, runID, "summary.json"))
	if err != nil {
		t.Fatalf("exit %d, no summary: %v\n%s\n%s", code, err, stdout.String(), stderr.String())
	}
	return code, stdout.String() + stderr.String(), s
}

// reordered is the target's count of pushes it reordered, of one
// conversation type.
func reordered(t *testing.T, tg *reftest.WKTarget, convType string) int64 {
	t.Helper()
	families, err := tg.Metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "imbench_target_fault_reordered_pushes_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "conv_type" && l.GetValue() == convType {
					return int64(m.GetCounter().GetValue())
				}
			}
		}
	}
	t.Fatalf("the target has no reordered count for %s", convType)
	return 0
}

// The target reorders pushes of two classes, one pacing 1 in flight, one
// 16 (a pair's and a group's, which its counts tell apart): each class's
// row holds exactly what the target reordered in it, and disorder with 1
// in flight crosses out_of_order{inflight:1}.
func TestOrderRowsCountWhatTheTargetReordered(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{Reorder: 0.1, ReorderHold: 500 * time.Millisecond,
		ReorderLate: 100 * time.Millisecond, Seed: 19}, 0) // written late, but within the client's gap grace: out of order
	script := filepath.Join(t.TempDir(), "classes.js")
	src := `import im from 'imbench';
export const plan = im.workload({ name: 'wukongim/order-classes', bodySize: 64, classes: [
  { kind: 'pairs', pairs: 2, allOnline: true, inFlight: 1, messages: 300 },
  { kind: 'groups', groups: 2, members: 3, allOnline: true, inFlight: 16, messages: 300 },
] });
export const options = { thresholds: { 'out_of_order{inflight:1}': ['count==0'], lost: ['count==0'] } };
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, s := runWuKongIM(t, tg, script, "order1")
	single, group := reordered(t, tg, "single"), reordered(t, tg, "group")
	c := s.Deliveries.ByClass
	if len(c) != 2 || c[0].InFlight != 1 || c[1].InFlight != 16 || c[0].Kind != "pairs" || c[1].Kind != "groups" {
		t.Fatalf("classes %+v", c)
	}
	if single == 0 || group == 0 || c[0].OutOfOrder != single || c[1].OutOfOrder != group || c[0].Duplicates+c[1].Duplicates != 0 {
		t.Fatalf("target reordered %d single and %d group pushes; rows %+v", single, group, c)
	}
	byType := s.Deliveries.ByType
	if c[0].Received != byType["single"].Received || c[1].Received != byType["group"].Received || c[0].Received != 600 ||
		c[1].Received != 1200 || s.Deliveries.Lost != 0 {
		t.Fatalf("received by class %d, %d; by type %+v; lost %d", c[0].Received, c[1].Received, byType, s.Deliveries.Lost)
	}
	if code != ExitThresholds || !strings.Contains(out, "✗ out_of_order{inflight:1} count==0 ("+itoa(single)+")") {
		t.Fatalf("exit %d, want %d for disorder with 1 in flight:\n%s", code, ExitThresholds, out)
	}
	row := itoa(single) + " of 600 out of order when each send waits for its ack (class 1, pairs); " +
		itoa(group) + " of 1200 out of order with 16 in flight (class 2, groups)"
	if !strings.Contains(out, row) {
		t.Fatalf("no %q in\n%s", row, out)
	}
	if m := s.Messages; float64(m.PeakPerSecond) < m.AvgPerSecond {
		t.Fatalf("peak %d below the average %v", m.PeakPerSecond, m.AvgPerSecond)
	}
}

// wukongim/ordering runs rapid sending both ways; on a target that keeps
// order, both classes read in order and the run passes.
func TestOrderingScenarioRunsBothWays(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	code, out, s := runWuKongIM(t, tg, filepath.Join(scenarioDir, "wukongim", "ordering.js"), "order2", "IM_SCALE=0.01")
	c := s.Deliveries.ByClass
	if code != ExitOK || len(c) != 2 || c[0].InFlight != 1 || c[1].InFlight != 16 || c[0].Received != 1000 || c[1].Received != 1000 {
		t.Fatalf("exit %d, classes %+v\n%s", code, c, out)
	}
	want := "in order (1000 deliveries) when each send waits for its ack (class 1, pairs); in order (1000 deliveries) with 16 in flight (class 2, pairs)"
	if !strings.Contains(out, want) || !strings.Contains(out, "✓ out_of_order{inflight:1} count==0 (0)") {
		t.Fatalf("no %q in\n%s", want, out)
	}
	if m := s.Messages; float64(m.PeakPerSecond) < m.AvgPerSecond {
		t.Fatalf("peak %d below the average %v (per second %v)", m.PeakPerSecond, m.AvgPerSecond, m.PerSecond)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// A burst class sends each second's messages back to back, as wkstress
// writes them, not each after the last one's answer: against a target
// whose every answer comes 200 ms late, a sender due 20 a second still
// sends them all on time, and its class is reported with 20 in flight.
func TestABurstGoesOutBackToBack(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{AckLate: 1, AckLateBy: 200 * time.Millisecond, Seed: 1}, 0)
	file := filepath.Join(t.TempDir(), "burst.js")
	os.WriteFile(file, []byte(`import im from 'imbench';
export const plan = im.workload({ name: 'burst', runId: __ENV.IM_RUN_ID,
  classes: [{ kind: 'groups', groups: 1, members: 3, allOnline: true, senders: 1, rate: 20, pace: 'burst', messages: 40 }] });
`), 0o644)
	code, out, s := runWuKongIM(t, tg, file, "burst1")
	c := s.Deliveries.ByClass
	if code != ExitOK || s.Messages.Acked != 40 || s.Messages.Unsent != 0 || len(c) != 1 || c[0].InFlight != 20 || c[0].Received != 80 {
		t.Fatalf("exit %d, acked %d, unsent %d, classes %+v\n%s", code, s.Messages.Acked, s.Messages.Unsent, c, out)
	}
	if m := s.Messages; m.PlannedRate > 0 && m.AvgPerSecond < 0.8*m.PlannedRate {
		t.Fatalf("sent %.1f msg/s of the %.1f planned\n%s", m.AvgPerSecond, m.PlannedRate, out)
	}
}
