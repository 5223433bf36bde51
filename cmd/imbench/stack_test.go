package main

// The main job's whole path with the observability stack: `imbench up`
// (reference target, node_exporter, process-exporter, VictoriaLogs,
// Prometheus, all native), a smoke run, then what the stack must hold: the
// run's im_* series, per-component CPU and memory of the target and the
// generator, node metrics, the run's log lines in VictoriaLogs (imbench's and
// the target's), and data behind every query of every
// dashboard. Grafana cannot run here; this is how we know the dashboards
// show something. Then `imbench down`, and nothing may be left running.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/testmachine"
)

// The stack's exporters see every process of the target's name on the
// machine, another test's targets too: the report's CPU rows are checked
// against Prometheus with the machine to itself.
func TestStackObservesARun(t *testing.T) {
	testmachine.Alone(t)
	s := newStack(t)
	s.downAtTheEnd()
	upAt := time.Now()
	if r := s.cli("up"); r.code != 0 {
		t.Fatalf("up: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := s.cli("up"); strings.Count(r.stdout, "already up") != 5 {
		t.Fatalf("second up should find all 5 services up:\n%s", r.stdout)
	}
	st := s.cli("status")
	for _, svc := range []string{"reference-target", "node-exporter", "process-exporter", "victorialogs", "prometheus"} {
		if !regexp.MustCompile(`(?m)^`+svc+`\s+healthy \(pid \d+\)\s+http`).MatchString(st.stdout) &&
			!regexp.MustCompile(`(?m)^`+svc+`\s+healthy \(pid \d+\)\s+api http`).MatchString(st.stdout) {
			t.Fatalf("status does not show %s healthy with its URL:\n%s", svc, st.stdout)
		}
	}

	r := s.cli("run", "-scenario", "openim/test1", "-scale", "0.25", "-rate", "25")
	if r.code != 0 || !strings.Contains(r.stdout, "Message Integrity      | 100%") ||
		!strings.Contains(r.stdout, "metrics → Prometheus") || !strings.Contains(r.stdout, "log → VictoriaLogs") {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var sum struct {
		RunID     string    `json:"run_id"`
		System    string    `json:"system"`
		StartedAt time.Time `json:"started_at"`
	}
	raw, err := os.ReadFile(filepath.Join(s.root, "results", "latest", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(raw, &sum)
	run, from := sum.RunID, sum.StartedAt.Add(-5*time.Second)
	// A limit search of two short steps, so that the dashboard's limit row
	// has a search to show: 50 msg/s for 5 s holds an objective of fewer
	// than 300 acknowledged, 100 msg/s breaks it.
	search := "stack_search_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if r := s.cli("limit", "-scenario", "wukongim/send-limit", "-scale", "0.01", "-start", "50", "-max", "100", "-step", "5s",
		"-slo", "acked<300", "-max-steps", "2", "-run-id", search, "-q"); r.code != 0 {
		t.Fatalf("limit: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	s.search = search

	time.Sleep(12 * time.Second) // two rule evaluations and a scrape after the runner's last push
	now := time.Now()

	for _, q := range []string{
		fmt.Sprintf(`imbench_messages_sent_total{run_id=%q}`, run),
		fmt.Sprintf(`imbench_deliveries_total{run_id=%q}`, run),
		fmt.Sprintf(`imbench_e2e_latency_seconds{run_id=%q}`, run),
		fmt.Sprintf(`imbench_lost_total{run_id=%q}`, run),
		`max_over_time(imbench:component_cpu_cores{component="imbench-target"}[10m])`,
		`max_over_time(imbench:component_memory_rss_bytes{component="imbench-target"}[10m]) > 0`,
		`max_over_time(imbench:component_cpu_cores{component="imbench"}[10m]) > 0`,
		`max_over_time(imbench:component_memory_rss_bytes{component="imbench"}[10m]) > 0`,
		`node_cpu_seconds_total`,
		`imbench:node_memory_used_bytes`,
		`up{job="reference-target"} == 1`,
	} {
		if s.series(q, from, now, true) == 0 {
			t.Errorf("Prometheus has nothing for %s", q)
		}
	}
	if n := len(s.logLines(fmt.Sprintf(`{run_id=%q, job="imbench"}`, run), from, now)); n == 0 {
		t.Error("VictoriaLogs holds no line of imbench's log of the run")
	}
	checkConsoleLog(t, s, run, from)
	// The target logs as it starts (and on faults), not during a run.
	if n := len(s.logLines(`{job="imbench-target", target="reference"}`, upAt, now)); n == 0 {
		t.Error("VictoriaLogs holds no line of the target's log")
	}

	checkDashboards(t, s, run, from, now)

	// The same dashboards over WuKongIM's protocol, the reference target's
	// other front end: selected by the same target label.
	if r := s.cli("run", "-scenario", "wukongim/receive", "-scale", "0.01"); r.code != 0 ||
		!strings.Contains(r.stdout, "As the WuKongIM report has it") {
		t.Fatalf("wukongim run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	raw, err = os.ReadFile(filepath.Join(s.root, "results", "latest", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(raw, &sum)
	wkRun, wkFrom := sum.RunID, sum.StartedAt.Add(-5*time.Second)
	if sum.System != "wukongim" {
		t.Fatalf("wukongim/receive ran over %q", sum.System)
	}
	time.Sleep(12 * time.Second)
	wkNow := time.Now()
	if s.series(fmt.Sprintf(`imbench_deliveries_total{run_id=%q, system="wukongim"}`, wkRun), wkFrom, wkNow, true) == 0 {
		t.Errorf("Prometheus has no WuKongIM deliveries of run %s", wkRun)
	}
	checkDashboards(t, s, wkRun, wkFrom, wkNow)

	t.Run("report", func(t *testing.T) { checkReport(t, s, run) })

	pids := map[string]string{}
	for _, svc := range []string{"reference-target", "node-exporter", "process-exporter", "victorialogs", "prometheus"} {
		b, _ := os.ReadFile(filepath.Join(s.root, ".run", svc+".pid"))
		pids[svc] = strings.TrimSpace(string(b))
	}
	if r := s.cli("down"); strings.Count(r.stdout, "stopped") != 5 {
		t.Fatalf("down: %s", r.stdout)
	}
	for svc, pid := range pids {
		if _, err := os.Stat("/proc/" + pid); pid != "" && err == nil {
			t.Errorf("%s (pid %s) still running after down", svc, pid)
		}
	}
}

// upStack is a stack of its own, up, taken down at the test's end.
func upStack(t *testing.T) *testStack {
	s := newStack(t)
	s.downAtTheEnd()
	if r := s.cli("up"); r.code != 0 {
		t.Fatalf("up: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	return s
}

// Each of these has a stack of its own, so that they run side by side.

// Two runs alike compare as equal, latencies included: alone.
func TestStackComparesTwoRuns(t *testing.T) {
	testmachine.Alone(t)
	s := upStack(t)
	checkCompare(t, s, s.runScenario(t, "25"))
}

func TestStackServesTheLiveView(t *testing.T) {
	testmachine.Shared(t)
	checkLive(t, upStack(t))
}

func TestStackReportsHolesWherePrometheusWasDown(t *testing.T) {
	testmachine.Shared(t)
	checkHoles(t, upStack(t))
}
