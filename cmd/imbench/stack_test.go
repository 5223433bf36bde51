package main

// The main job's whole path with the observability stack: `imbench up`
// (reference target, node_exporter, process-exporter, Loki, Prometheus, all
// native), a smoke run, then what the stack must hold: the run's im_* series,
// per-component CPU and memory of the target and the generator, node
// metrics, the run's log lines in Loki, and data behind every query of every
// dashboard. Grafana cannot run here; this is how we know the dashboards
// show something. Then `imbench down`, and nothing may be left running.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/dashboards"
)

type stack struct {
	t    *testing.T
	root string
	env  []string
	prom string // http://host:port
	loki string
}

func newStack(t *testing.T) *stack {
	tools := toolsDir(t)
	for _, b := range []string{"prometheus", "loki"} {
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
	for _, dir := range []string{"k6", "targets", "prometheus", "loki", "exporters"} {
		if err := os.Symlink(filepath.Join(src, dir), filepath.Join(root, dir)); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(root, ".tools"), 0o755)
	os.Symlink(tools, filepath.Join(root, ".tools", "bin"))
	port := func() string { return fmt.Sprintf("127.0.0.1:%d", freePort(t)) }
	api, ws, met, prom, node, proc, loki, grpc := port(), port(), port(), port(), port(), port(), port(), port()
	s := &stack{t: t, root: root, prom: "http://" + prom, loki: "http://" + loki}
	s.env = []string{"IMBENCH_NATIVE=1",
		"IMBENCH_TARGET_API=" + api, "IMBENCH_TARGET_WS=" + ws, "IMBENCH_TARGET_METRICS=" + met,
		"IMBENCH_PROMETHEUS=" + prom, "IMBENCH_NODE_EXPORTER=" + node, "IMBENCH_PROCESS_EXPORTER=" + proc,
		"IMBENCH_LOKI=" + loki, "IMBENCH_LOKI_GRPC=" + grpc,
		"IM_API_URL=http://" + api, "IM_WS_URL=ws://" + ws}
	return s
}

func (s *stack) cli(args ...string) result {
	cmd := exec.Command(filepath.Join(s.root, ".tools", "bin", "imbench"), args...)
	cmd.Dir = s.root
	cmd.Env = append(os.Environ(), s.env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	}
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
func (s *stack) series(expr string, from, at time.Time, instant bool) int {
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

func (s *stack) lokiLines(query string, from time.Time) int {
	s.t.Helper()
	q := url.Values{"query": {query}, "start": {strconv.FormatInt(from.UnixNano(), 10)}, "limit": {"1000"}}
	var r struct {
		Data struct {
			Result []struct {
				Values [][2]string `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	getJSON(s.t, s.loki+"/loki/api/v1/query_range?"+q.Encode(), &r)
	n := 0
	for _, st := range r.Data.Result {
		n += len(st.Values)
	}
	return n
}

func TestStackObservesARun(t *testing.T) {
	s := newStack(t)
	t.Cleanup(func() { s.cli("down") })
	if r := s.cli("up"); r.code != 0 {
		t.Fatalf("up: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := s.cli("up"); strings.Count(r.stdout, "already up") != 5 {
		t.Fatalf("second up should find all 5 services up:\n%s", r.stdout)
	}
	st := s.cli("status")
	for _, svc := range []string{"reference-target", "node-exporter", "process-exporter", "loki", "prometheus"} {
		if !regexp.MustCompile(`(?m)^`+svc+`\s+healthy \(pid \d+\)\s+http`).MatchString(st.stdout) &&
			!regexp.MustCompile(`(?m)^`+svc+`\s+healthy \(pid \d+\)\s+api http`).MatchString(st.stdout) {
			t.Fatalf("status does not show %s healthy with its URL:\n%s", svc, st.stdout)
		}
	}

	r := s.cli("run", "-scenario", "openim/test1", "-scale", "0.25", "-rate", "25")
	if r.code != 0 || !strings.Contains(r.stdout, "Message Integrity      | 100%") ||
		!strings.Contains(r.stdout, "metrics → Prometheus") || !strings.Contains(r.stdout, "k6 log → Loki") {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var sum struct {
		RunID     string    `json:"run_id"`
		StartedAt time.Time `json:"started_at"`
	}
	raw, err := os.ReadFile(filepath.Join(s.root, "results", "latest", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(raw, &sum)
	run, from := sum.RunID, sum.StartedAt.Add(-5*time.Second)
	time.Sleep(12 * time.Second) // two rule evaluations and a scrape after k6's last push
	now := time.Now()

	for _, q := range []string{
		fmt.Sprintf(`k6_im_messages_sent_total{run_id=%q}`, run),
		fmt.Sprintf(`k6_im_deliveries_total{run_id=%q}`, run),
		fmt.Sprintf(`k6_im_e2e_latency_seconds{run_id=%q}`, run),
		fmt.Sprintf(`k6_im_lost_total{run_id=%q}`, run),
		`max_over_time(imbench:component_cpu_cores{component="imbench-target"}[10m])`,
		`max_over_time(imbench:component_memory_rss_bytes{component="imbench-target"}[10m]) > 0`,
		`max_over_time(imbench:component_cpu_cores{component="k6"}[10m]) > 0`,
		`max_over_time(imbench:component_memory_rss_bytes{component="k6"}[10m]) > 0`,
		`node_cpu_seconds_total`,
		`imbench:node_memory_used_bytes`,
		`up{job="reference-target"} == 1`,
	} {
		if s.series(q, from, now, true) == 0 {
			t.Errorf("Prometheus has nothing for %s", q)
		}
	}
	if n := s.lokiLines(fmt.Sprintf(`{run_id=%q, job="k6"}`, run), from); n == 0 {
		t.Error("Loki holds no k6 log line of the run")
	}
	if n := s.lokiLines(`{job="imbench-target"}`, from); n == 0 {
		t.Error("Loki holds no line of the target's log")
	}

	// Every query of every dashboard, variables filled in for this run.
	rangeSecs := int(now.Sub(from).Seconds())
	fill := strings.NewReplacer("$run_id", run, "$target", "reference", "$instance", ".*",
		"$__range", fmt.Sprintf("%ds", rangeSecs), "$__rate_interval", "1m", "$__interval", "5s")
	for name, d := range dashboards.Build() {
		for _, p := range d.Panels {
			for _, tg := range p.Targets {
				expr := fill.Replace(tg.Expr)
				n := 0
				if tg.Datasource["uid"] == dashboards.LokiUID {
					n = s.lokiLines(expr, from)
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
			if len(lv.Data) == 0 || (m[2] == "run_id" && !contains(lv.Data, run)) {
				t.Errorf("%s: variable %s offers %v", name, m[2], lv.Data)
			}
		}
		for _, a := range d.Annotations["list"].([]any) {
			if expr, ok := a.(map[string]any)["expr"].(string); ok && s.series(fill.Replace(expr), from, now, false) == 0 {
				t.Errorf("%s: annotation %q has no data", name, expr)
			}
		}
	}

	pids := map[string]string{}
	for _, svc := range []string{"reference-target", "node-exporter", "process-exporter", "loki", "prometheus"} {
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
