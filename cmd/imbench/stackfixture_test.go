package main

import (
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

	"github.com/imbench/imbench/internal/stack/observe"
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
