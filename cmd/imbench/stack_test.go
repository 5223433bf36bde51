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
	"context"
	"encoding/json"
	"fmt"
	"github.com/imbench/imbench/internal/observe"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/imbench/imbench/dashboards"
	"github.com/imbench/imbench/report"
)

// testStack is a native stack of the test's own, on free ports, in a temporary root.
type testStack struct {
	t      *testing.T
	root   string
	env    []string
	prom   string // http://host:port
	logs   string // VictoriaLogs, http://host:port
	search string // a limit search's id, for the dashboard's limit row
}

func newStack(t *testing.T) *testStack {
	tools := toolsDir(t)
	for _, b := range []string{"prometheus", "victoria-logs"} {
		if _, err := os.Stat(filepath.Join(tools, b)); err != nil {
			t.Fatalf("%s not built: run `make test`", b)
		}
	}
	for _, b := range []string{"prometheus-node-exporter", "prometheus-process-exporter"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Fatalf("%s not installed: run `make test` (it installs the Debian packages)", b)
		}
	}
	root := t.TempDir()
	src := mustAbs(t, "../..")
	for _, dir := range []string{"load", "targets", "prometheus", "exporters"} {
		if err := os.Symlink(filepath.Join(src, dir), filepath.Join(root, dir)); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(root, ".tools"), 0o755)
	os.Symlink(tools, filepath.Join(root, ".tools", "bin"))
	port := func() string { return fmt.Sprintf("127.0.0.1:%d", freePort(t)) }
	api, ws, met, prom, node, proc, vlogs := port(), port(), port(), port(), port(), port(), port()
	// WuKongIM's and Wildfire's listeners too: a stack already up on this
	// machine holds their defaults. The target reads its IMBENCH_TARGET_*.
	wkAPI, wkTCP, wkWS, wfAdmin, wfMQTT := port(), port(), port(), port(), port()
	s := &testStack{t: t, root: root, prom: "http://" + prom, logs: "http://" + vlogs}
	s.env = []string{"IMBENCH_NATIVE=1",
		"IMBENCH_TARGET_API=" + api, "IMBENCH_TARGET_WS=" + ws, "IMBENCH_TARGET_METRICS=" + met,
		"IMBENCH_PROMETHEUS=" + prom, "IMBENCH_NODE_EXPORTER=" + node, "IMBENCH_PROCESS_EXPORTER=" + proc,
		"IMBENCH_VICTORIALOGS=" + vlogs,
		"IMBENCH_TARGET_WUKONGIM_API=" + wkAPI, "IMBENCH_TARGET_WUKONGIM_TCP=" + wkTCP, "IMBENCH_TARGET_WUKONGIM_WS=" + wkWS,
		"IMBENCH_TARGET_WILDFIRE_ADMIN=" + wfAdmin, "IMBENCH_TARGET_WILDFIRE_MQTT=" + wfMQTT,
		"IM_API_URL=http://" + api, "IM_WS_URL=ws://" + ws,
		"IM_WUKONGIM_API_URL=http://" + wkAPI, "IM_WUKONGIM_TCP_URL=tcp://" + wkTCP, "IM_WUKONGIM_WS_URL=ws://" + wkWS,
		"IM_WILDFIRE_ADMIN_URL=http://" + wfAdmin, "IM_WILDFIRE_MQTT_URL=tcp://" + wfMQTT}
	return s
}

// downAtTheEnd brings the stack down when the test ends, and a minute
// before its -timeout would end it: that panic runs no Cleanup, and the
// stack's processes would outlive the test.
func (s *testStack) downAtTheEnd() {
	s.t.Cleanup(func() { s.cli("down") })
	if d, ok := s.t.Deadline(); ok {
		guard := time.AfterFunc(time.Until(d)-time.Minute, func() { s.cli("down") })
		s.t.Cleanup(func() { guard.Stop() })
	}
}

func (s *testStack) cli(args ...string) result {
	r, _ := runCLI(filepath.Join(s.root, ".tools", "bin", "imbench"), s.root, s.env, args...)
	return r
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("%s: %v", u, err)
	}
}

type promResult struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Data   struct {
		Result []json.RawMessage `json:"result"`
	} `json:"data"`
}

// series runs a PromQL query, instant at `at` or over [from, at].
func (s *testStack) series(expr string, from, at time.Time, instant bool) int {
	s.t.Helper()
	q := url.Values{"query": {expr}}
	path := "/api/v1/query"
	if instant {
		q.Set("time", strconv.FormatInt(at.Unix(), 10))
	} else {
		path = "/api/v1/query_range"
		q.Set("start", strconv.FormatInt(from.Unix(), 10))
		q.Set("end", strconv.FormatInt(at.Unix(), 10))
		q.Set("step", "5")
	}
	var r promResult
	getJSON(s.t, s.prom+path+"?"+q.Encode(), &r)
	if r.Status != "success" {
		s.t.Errorf("query %q failed: %s", expr, r.Error)
	}
	return len(r.Data.Result)
}

// logLines runs a LogsQL query over [from, to] as Grafana's VictoriaLogs
// plugin runs a logs panel's: each line's fields.
func (s *testStack) logLines(query string, from, to time.Time) []map[string]string {
	s.t.Helper()
	return logsQL(s.t, s.logs, query, from, to)
}

func TestStackObservesARun(t *testing.T) {
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
	t.Run("compare", func(t *testing.T) { checkCompare(t, s, run) })
	t.Run("live", func(t *testing.T) { checkLive(t, s) })
	t.Run("holes", func(t *testing.T) { checkHoles(t, s) })

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

// checkDashboards runs every query of every dashboard, variables filled in
// for run, and requires data of each.
func checkDashboards(t *testing.T, s *testStack, run string, from, now time.Time) {
	t.Helper()
	rangeSecs := int(now.Sub(from).Seconds())
	fill := strings.NewReplacer("$run_id", run, "$search_id", s.search, "$target", "reference", "$instance", ".*",
		"$__range", fmt.Sprintf("%ds", rangeSecs), "$__rate_interval", "1m", "$__interval", "5s")
	for name, d := range dashboards.Build() {
		for _, p := range d.Panels {
			for _, tg := range p.Targets {
				expr := fill.Replace(tg.Expr)
				n := 0
				if tg.Datasource["uid"] == dashboards.LogsUID {
					// The log panel over the dashboard's own time range (the
					// target logs as it starts, before the run): the run's
					// lines, imbench's (job=imbench, this run_id), and the
					// target's.
					ago, err := time.ParseDuration(strings.TrimPrefix(fmt.Sprint(d.Time["from"]), "now-"))
					if err != nil {
						t.Fatalf("%s: time range from %v", name, d.Time["from"])
					}
					lines := s.logLines(expr, now.Add(-ago), now)
					n = len(lines)
					var runner, target int
					for _, l := range lines {
						switch {
						case l["job"] == "imbench" && l["run_id"] == run:
							runner++
						case l["job"] == "imbench-target":
							target++
						}
					}
					if runner == 0 || target == 0 {
						t.Errorf("%s / %q: %s finds %d lines of imbench's log of run %s and %d of the target's, want both",
							name, p.Title, expr, runner, run, target)
					}
				} else {
					n = s.series(expr, from, now, tg.Instant)
				}
				if n == 0 {
					t.Errorf("%s / %q: no data for %s", name, p.Title, expr)
				}
			}
		}
		for _, v := range d.Templating["list"].([]any) {
			q := v.(map[string]any)["query"].(map[string]any)["query"].(string)
			m := regexp.MustCompile(`^label_values\((.*), (\w+)\)$`).FindStringSubmatch(fill.Replace(q))
			if m == nil {
				t.Fatalf("%s: variable query %q", name, q)
			}
			var lv struct{ Data []string }
			getJSON(t, s.prom+"/api/v1/label/"+m[2]+"/values?"+url.Values{"match[]": {m[1]}}.Encode(), &lv)
			if len(lv.Data) == 0 || (m[2] == "run_id" && !slices.Contains(lv.Data, run)) {
				t.Errorf("%s: variable %s offers %v", name, m[2], lv.Data)
			}
		}
		for _, a := range d.Annotations["list"].([]any) {
			if expr, ok := a.(map[string]any)["expr"].(string); ok && s.series(fill.Replace(expr), from, now, false) == 0 {
				t.Errorf("%s: annotation %q has no data", name, expr)
			}
		}
	}

}

// checkReport: results/latest holds report.md, report.html and series.json;
// figures in report.md trace to summary.json and to Prometheus over the
// run's window; report.html draws every chart offline.
func checkReport(t *testing.T, s *testStack, run string) {
	dir := filepath.Join(s.root, "results", run)
	for _, f := range []string{"report.md", "report.html", "series.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("results/%s: %v", run, err)
		}
	}
	r, err := report.Load(dir)
	if err != nil || r.Series == nil {
		t.Fatalf("load: %v", err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	md := string(raw)
	sum := r.Summary
	cell := func(row string) string {
		m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(row) + ` \| (.*) \|$`).FindStringSubmatch(md)
		if m == nil {
			t.Fatalf("report.md has no row %q", row)
		}
		return m[1]
	}
	ints := func(s string) []int64 {
		var out []int64
		for _, f := range regexp.MustCompile(`\d[\d,]*(\.\d+)?`).FindAllString(s, -1) {
			v, _ := strconv.ParseFloat(strings.ReplaceAll(f, ",", ""), 64)
			out = append(out, int64(v))
		}
		return out
	}
	// From summary.json.
	if got, want := ints(cell("Total Messages")), []int64{sum.Messages.Sent, sum.Messages.Acked, sum.Messages.SendFailed,
		sum.Deliveries.Received, sum.Deliveries.Pushed, sum.Deliveries.ByPull}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Total Messages %v, summary.json says %v", got, want)
	}
	if got := cell("Maximum Latency"); got != fmt.Sprintf("%.3f seconds", sum.Latency.E2E.Max/1000) {
		t.Errorf("Maximum Latency %q, summary.json max %v ms", got, sum.Latency.E2E.Max)
	}
	if !strings.Contains(md, fmt.Sprintf("| End-to-end (create → received) | %.1f | %.1f | %.1f | %.1f | %.1f |",
		sum.Latency.E2E.Avg, sum.Latency.E2E.P50, sum.Latency.E2E.P95, sum.Latency.E2E.P99, sum.Latency.E2E.Max)) {
		t.Error("the e2e latency row differs from summary.json")
	}
	// From Prometheus over the window, queried afresh.
	window := fmt.Sprintf("%ds", int(r.Series.To.Sub(r.Series.From).Seconds()+0.999))
	// The generator's row is this run's own processes, from the CPU each
	// pushed with the run's id: the query the report stored.
	own, _, _ := strings.Cut(r.Series.Queries["generator_cpu_avg"], " @ ")
	if !r.Series.GeneratorOwn || own == "" {
		t.Fatalf("the generator row is not the run's own series (queries %v)", r.Series.Queries)
	}
	for _, c := range []struct{ row, expr string }{
		{"imbench-target", `100 * avg_over_time(imbench:component_cpu_cores{component="imbench-target"}[` + window + `])`},
		{"imbench", own},
	} {
		res, err := (report.Prom{URL: s.prom}).Instant(context.Background(), c.expr, r.Series.To)
		if err != nil || len(res) != 1 {
			t.Fatalf("%s: %v %v", c.expr, res, err)
		}
		m := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(c.row) + `( \(\d+ processes\))? \| ([\d.]+) %`).FindStringSubmatch(md)
		if m == nil {
			t.Fatalf("no resource row for %s:\n%s", c.row, md)
		}
		shown, _ := strconv.ParseFloat(m[2], 64)
		if diff := shown - res[0].Value; diff > 0.5 || diff < -0.5 {
			t.Errorf("%s CPU avg shows %v %%, Prometheus says %.2f %%", c.row, shown, res[0].Value)
		}
	}
	charts, urls := browseReport(t, filepath.Join(dir, "report.html"))
	if len(charts) != 6 {
		t.Fatalf("%d charts in the page, want 6", len(charts))
	}
	for _, c := range charts {
		if c.Points == 0 || c.Lines == 0 || c.Length <= 0 || c.Width <= 0 || c.Height <= 0 {
			t.Errorf("chart %q drew nothing: %+v", c.Title, c)
		}
	}
	for _, u := range urls {
		if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
			t.Errorf("report.html requested %s", u)
		}
	}
}

func (s *testStack) runScenario(t *testing.T, rate string) string {
	t.Helper()
	r := s.cli("run", "-scenario", "openim/test1", "-scale", "0.25", "-rate", rate)
	if r.code != 0 {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	m := regexp.MustCompile(`imbench: run (\S+):`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no run id in %s", r.stdout)
	}
	return m[1]
}

// restartTarget starts the reference target again with extra environment.
func (s *testStack) restartTarget(t *testing.T, env ...string) {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(s.root, ".run", "reference-target.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid > 0 {
		if p, err := os.FindProcess(pid); err == nil {
			p.Signal(os.Interrupt)
		}
		for i := 0; i < 50; i++ {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	saved := s.env
	s.env = append(append([]string(nil), s.env...), env...)
	r := s.cli("up")
	s.env = saved
	if r.code != 0 {
		t.Fatalf("up: %s %s", r.stdout, r.stderr)
	}
}

// checkCompare: two runs alike compare clean (exit 0); a run with 50 ms
// added to every push is flagged (exit 3).
func checkCompare(t *testing.T, s *testStack, base string) {
	again := s.runScenario(t, "25")
	if r := s.cli("compare", "-a", base, "-b", again); r.code != 0 {
		t.Fatalf("equal runs: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	s.restartTarget(t, "IMBENCH_TARGET_FAULT_DELAY=50ms")
	slow := s.runScenario(t, "25")
	s.restartTarget(t)
	r := s.cli("compare", "-a", base, "-b", slow)
	if r.code != 3 || !regexp.MustCompile(`(?m)^\| E2E latency p50 \|.*\*\*worse\*\*`).MatchString(r.stdout) ||
		!strings.Contains(r.stderr, "E2E latency p50") {
		t.Fatalf("delayed run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// checkHoles: Prometheus is killed mid-run; the report still comes, from
// summary.json, and names the charts that have holes; once it is up again,
// the runner's remote write resumes.
func checkHoles(t *testing.T, s *testStack) {
	r := s.startRun(t, "6")
	time.Sleep(12 * time.Second)
	b, _ := os.ReadFile(filepath.Join(s.root, ".run", "prometheus.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 {
		t.Fatal("no prometheus pid")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 prometheus (pid %d): %v", pid, err)
	}
	time.Sleep(30 * time.Second)
	if r := s.cli("up"); r.code != 0 {
		t.Fatalf("up again: %s %s", r.stdout, r.stderr)
	}
	restarted := time.Now()
	out := r.wait(t)
	raw, err := os.ReadFile(filepath.Join(s.root, "results", "latest", "report.md"))
	if err != nil {
		t.Fatalf("no report after a Prometheus restart: %v\n%s", err, out)
	}
	md := string(raw)
	if !strings.Contains(md, "| Message Integrity | 100 % (all messages delivered) |") {
		t.Error("the results from summary.json are missing")
	}
	if n := strings.Count(md, "is incomplete: no data from"); n < 4 {
		t.Errorf("%d charts named incomplete after Prometheus was down 30 s:\n%s", n, md)
	}
	// Samples of the run stamped after the restart: a range selector is
	// open at its start, so the window begins exactly at the restart.
	now := time.Now()
	expr := fmt.Sprintf(`count_over_time(imbench_messages_sent_total{run_id=%q}[%dms])`, r.runID(t), now.Sub(restarted).Milliseconds())
	res, err := (report.Prom{URL: s.prom}).Instant(context.Background(), expr, now)
	if err != nil || len(res) == 0 {
		t.Errorf("the runner's remote write did not resume after Prometheus restarted at %s: %s gives %v %v",
			restarted.UTC().Format(time.RFC3339Nano), expr, res, err)
	}
}

// startRun starts `imbench run` of openim/test1 at rate on the stack.
func (s *testStack) startRun(t *testing.T, rate string) *backgroundRun {
	t.Helper()
	return startBackground(t, filepath.Join(s.root, ".tools", "bin", "imbench"), s.root, s.env,
		"run", "-scenario", "openim/test1", "-scale", "0.25", "-rate", rate)
}

// logsQL runs a LogsQL query as Grafana's VictoriaLogs plugin runs a logs
// panel's (queryType instant): /select/logsql/query with start and end in
// Unix seconds and a line limit. It returns the lines, each its fields.
func logsQL(t *testing.T, base, query string, from, to time.Time) []map[string]string {
	t.Helper()
	lines, err := observe.QueryLogs(base, query, from, to, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// checkConsoleLog: what the run printed is in the log store by its run_id
// (source=console), the verdict at INFO; and a failing run's crossed
// thresholds, handleSummary error and verdict (at ERROR) too.
func checkConsoleLog(t *testing.T, s *testStack, run string, from time.Time) {
	t.Helper()
	find := func(run, level, prefix string) bool {
		for _, l := range s.logLines(fmt.Sprintf(`{run_id=%q} source:=console`, run), from, time.Now()) {
			if strings.Contains(l["_msg"], prefix) && l["level"] == level {
				return true
			}
		}
		return false
	}
	for _, want := range [][2]string{{"INFO", "imbench: verdict: " + run + " passed: "}, {"INFO", "imbench: results in "}, {"INFO", "| Message Integrity "}} {
		if !find(run, want[0], want[1]) {
			t.Errorf("VictoriaLogs has no %s line %q… of run %s", want[0], want[1], run)
		}
	}
	file := filepath.Join(t.TempDir(), "crossed.js")
	os.WriteFile(file, []byte(`import im from 'imbench';
import { planKnobs } from 'imbench/env';
export const plan = im.workload({ name: 'crossed', classes: [{ kind: 'pairs', pairs: 2, allOnline: true, rate: 5, messages: 3 }], ...planKnobs(__ENV) });
export const options = { thresholds: { e2e_p99: ['value<0'] } };
export function handleSummary(s) { return { stdout: im.table(s), [s.messages.sent > 0 ? '../outside.json' : 'inside.json']: '{}' }; }
`), 0o644) // a name only the run's own figures make: the check before load, with a summary of zeros, sees inside.json
	failed := "console_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if r := s.cli("run", "-scenario", file, "-run-id", failed); r.code != 99 || !strings.Contains(r.stdout, "imbench: verdict: "+failed+" failed (exit 99") {
		t.Fatalf("a run crossing its threshold: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for deadline := time.Now().Add(10 * time.Second); !find(failed, "ERROR", "imbench: verdict: "+failed+" failed") && time.Now().Before(deadline); {
		time.Sleep(500 * time.Millisecond)
	}
	for _, want := range [][2]string{{"ERROR", "imbench: verdict: " + failed + " failed (exit 99, crossed: e2e_p99 value<0)"},
		{"WARN", "imbench: thresholds crossed: e2e_p99 value<0"}, {"WARN", "imbench: handleSummary: \"../outside.json\""}} {
		if !find(failed, want[0], want[1]) {
			t.Errorf("VictoriaLogs has no %s line %q… of run %s", want[0], want[1], failed)
		}
	}
}
