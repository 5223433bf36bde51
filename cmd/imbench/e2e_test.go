package main

// End-to-end tests: the built binaries (imbench, which runs the scenario
// itself → the reference target), as `make run-scenario` runs them. `make test` builds
// the binaries first and says where they are in IMBENCH_TOOLS.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/catalog"
	"github.com/imbench/imbench/load/runner"
)

func toolsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("IMBENCH_TOOLS")
	if dir == "" {
		dir, _ = filepath.Abs("../../.tools/bin")
	}
	for _, b := range []string{"imbench", "imbench-target"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			t.Fatalf("%s not built in %s: run `make test` (it builds the tools first)", b, dir)
		}
	}
	return dir
}

// handedOut are the ports freePort gave this test process: the kernel may
// offer a closed one again, and two listeners of one target must differ.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

func freePort(t *testing.T) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		handedOut.Lock()
		again := handedOut.ports[port]
		handedOut.ports[port] = true
		handedOut.Unlock()
		if !again {
			return port
		}
	}
	t.Fatal("no port that was not handed out before in 100 tries")
	return 0
}

type target struct {
	api, ws, metrics string
	wkAPI, wkTCP     string // WuKongIM's API and TCP gateway URLs
	wkWS             string
	wfAdmin, wfMQTT  string // Wildfire's admin API and MQTT port
	secret           string
}

// startTarget runs the reference target binary on free loopback ports.
func startTarget(t *testing.T, flags ...string) target {
	t.Helper()
	tg, args := targetArgs(t, flags...)
	launchTarget(t, tg, args)
	return tg
}

// targetArgs picks the free ports of a target and its command line.
func targetArgs(t *testing.T, flags ...string) (target, []string) {
	t.Helper()
	tg := target{secret: "e2e-secret-" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	api, ws, met := freePort(t), freePort(t), freePort(t)
	tg.api = fmt.Sprintf("http://127.0.0.1:%d", api)
	tg.ws = fmt.Sprintf("ws://127.0.0.1:%d", ws)
	tg.metrics = fmt.Sprintf("http://127.0.0.1:%d/metrics", met)
	wkAPI, wkTCP, wkWS := freePort(t), freePort(t), freePort(t)
	tg.wkAPI, tg.wkTCP, tg.wkWS = fmt.Sprintf("http://127.0.0.1:%d", wkAPI), fmt.Sprintf("tcp://127.0.0.1:%d", wkTCP), fmt.Sprintf("ws://127.0.0.1:%d", wkWS)
	wfAdmin, wfMQTT := freePort(t), freePort(t)
	tg.wfAdmin, tg.wfMQTT = fmt.Sprintf("http://127.0.0.1:%d", wfAdmin), fmt.Sprintf("tcp://127.0.0.1:%d", wfMQTT)
	args := append([]string{"-api", fmt.Sprintf("127.0.0.1:%d", api), "-ws", fmt.Sprintf("127.0.0.1:%d", ws),
		"-metrics", fmt.Sprintf("127.0.0.1:%d", met), "-fault-seed", "42",
		"-wukongim-api", fmt.Sprintf("127.0.0.1:%d", wkAPI), "-wukongim-tcp", fmt.Sprintf("127.0.0.1:%d", wkTCP),
		"-wukongim-ws", fmt.Sprintf("127.0.0.1:%d", wkWS),
		"-wildfire-admin", fmt.Sprintf("127.0.0.1:%d", wfAdmin), "-wildfire-mqtt", fmt.Sprintf("127.0.0.1:%d", wfMQTT)}, flags...)
	return tg, args
}

// launchTarget starts the target and waits for its API; the process is
// killed at the end of the test.
func launchTarget(t *testing.T, tg target, args []string) *exec.Cmd {
	t.Helper()
	return launchTargetUnder(t, tg, args, "")
}

// launchTargetUnder is launchTarget with a shell's lines run before the
// target replaces the shell ("ulimit -n 300; "), its PID the target's.
func launchTargetUnder(t *testing.T, tg target, args []string, shell string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(filepath.Join(toolsDir(t), "imbench-target"), args...)
	if shell != "" {
		cmd = exec.Command("sh", append([]string{"-c", shell + `exec "$0" "$@"`, cmd.Path}, args...)...)
	}
	cmd.Env = append(os.Environ(), "IMBENCH_TARGET_SECRET="+tg.secret)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("target log:\n%s", log.String())
		}
	})
	for i := 0; i < 100; i++ {
		if resp, err := http.Get(tg.api + "/healthz"); err == nil {
			resp.Body.Close()
			return cmd
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("target did not start: %s", log.String())
	return cmd
}

type result struct {
	code           int
	stdout, stderr string
}

// imbench runs the CLI from the project root with the given environment.
func imbench(t *testing.T, env []string, args ...string) result {
	t.Helper()
	r, err := runCLI(filepath.Join(toolsDir(t), "imbench"), "../..", env, args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runCLI runs bin in dir; err is a failure to run it, not an exit code.
func runCLI(bin, dir string, env []string, args ...string) (result, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code, err = ee.ExitCode(), nil
	}
	return r, err
}

func (tg target) env() []string {
	return []string{"IM_API_URL=" + tg.api, "IM_WS_URL=" + tg.ws, "IM_SECRET=" + tg.secret,
		"IM_WUKONGIM_API_URL=" + tg.wkAPI, "IM_WUKONGIM_TCP_URL=" + tg.wkTCP, "IM_WUKONGIM_WS_URL=" + tg.wkWS,
		"IM_WILDFIRE_ADMIN_URL=" + tg.wfAdmin, "IM_WILDFIRE_MQTT_URL=" + tg.wfMQTT,
		"IM_STORM_URL=" + strings.TrimSuffix(tg.metrics, "/metrics") + "/fault/storm"}
}

// runSummary is the part of summary.json the tests read.
type runSummary struct {
	RunID string `json:"run_id"`
	Users struct {
		Registered  int   `json:"registered"`
		OnlinePeak  int64 `json:"online_peak"`
		LateLogins  int64 `json:"late_logins"`
		Disconnects int64 `json:"disconnects"`
		Reconnects  int64 `json:"reconnects"`
	} `json:"users"`
	Messages struct {
		Sent, Acked   int64
		SendFailed    int64 `json:"send_failed"`
		Unanswered    int64 `json:"unanswered"`
		PeakPerSecond int64 `json:"peak_per_second"`
	} `json:"messages"`
	Deliveries struct {
		Expected, Received, Pushed, Duplicates, Lost, Corrupted int64
		Unexpected                                              int64 // of sends never acknowledged
		OfUnanswered                                            int64 `json:"of_unanswered"`
		ByPull                                                  int64 `json:"by_pull"`
		ByGapPull                                               int64 `json:"by_gap_pull"`
		OutOfOrder                                              int64 `json:"out_of_order"`
		Rooms                                                   *struct {
			Expected, Received, Missed int64
		} `json:"rooms"`
	} `json:"deliveries"`
	Integrity float64 `json:"integrity"`
	Latency   struct {
		E2E struct {
			Count                   int64
			Avg, P50, P95, P99, Max float64
		} `json:"e2e"`
		Ack struct {
			Count                   int64
			Avg, P50, P95, P99, Max float64
		} `json:"ack"`
	} `json:"latency_ms"`
}

// runScenario runs openim/test1 against tg and returns its summary.
func runScenario(t *testing.T, tg target, scale, rate string, flags ...string) runSummary {
	t.Helper()
	results := t.TempDir()
	args := append([]string{"run", "-scenario", "openim/test1", "-scale", scale, "-rate", rate, "-results", results}, flags...)
	r := imbench(t, tg.env(), args...)
	if r.code != 0 {
		t.Fatalf("imbench run exited %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	raw, err := os.ReadFile(filepath.Join(results, "latest", "summary.json"))
	if err != nil {
		t.Fatalf("no results/latest/summary.json: %v\n%s", err, r.stdout)
	}
	var s runSummary
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// counter sums a metric family from the target's /metrics.
func (tg target) counter(t *testing.T, name string) int64 {
	t.Helper()
	resp, err := http.Get(tg.metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		f := strings.Fields(line)
		v, _ := strconv.ParseFloat(f[len(f)-1], 64)
		sum += v
	}
	return int64(sum)
}

func TestScenarioDeliversEverythingOnACleanTarget(t *testing.T) {
	tg := startTarget(t)
	s := runScenario(t, tg, "0.25", "300")
	d := s.Deliveries
	if d.Expected == 0 || d.Expected != d.Received || d.Lost != 0 || s.Integrity != 1 {
		t.Fatalf("expected %d received %d lost %d integrity %v", d.Expected, d.Received, d.Lost, s.Integrity)
	}
	if d.Duplicates+d.OutOfOrder+d.Corrupted+d.ByGapPull != 0 {
		t.Fatalf("clean target: %+v", d)
	}
	if s.Messages.Sent == 0 || s.Messages.Sent != s.Messages.Acked || s.Messages.PeakPerSecond == 0 {
		t.Fatalf("messages %+v", s.Messages)
	}
	// Late users received what they missed by pull, and it counts.
	if s.Users.LateLogins == 0 || d.ByPull == 0 || d.Pushed+d.ByPull != d.Received {
		t.Fatalf("late logins %d, pulled %d", s.Users.LateLogins, d.ByPull)
	}
	e := s.Latency.E2E
	if e.Count != d.Pushed || !(0 < e.P50 && e.P50 <= e.P95 && e.P95 <= e.P99 && e.P99 <= e.Max) {
		t.Fatalf("e2e latency %+v for %d pushed deliveries", e, d.Pushed)
	}
	// The target saw what the generator says it sent.
	// The target counts its notifications among chat messages, as the real
	// server does; it says how many it sent.
	if got := accepted(t, tg); got != s.Messages.Acked {
		t.Fatalf("target accepted %d messages (besides its notifications), generator had %d acknowledged", got, s.Messages.Acked)
	}
}

// Each fault the target injects must come out of the verifier exactly as
// the target counted it.
func TestFaultsAreCountedExactly(t *testing.T) {
	cases := []struct {
		name  string
		flags []string
		check func(t *testing.T, tg target, s runSummary)
	}{
		{"lose", []string{"-fault-lose", "0.01"}, func(t *testing.T, tg target, s runSummary) {
			want := tg.counter(t, "imbench_target_fault_lost_deliveries_total")
			if want == 0 || s.Deliveries.Lost != want || s.Integrity >= 1 {
				t.Fatalf("target lost %d deliveries, summary says lost %d (integrity %v)", want, s.Deliveries.Lost, s.Integrity)
			}
		}},
		{"skip-push", []string{"-fault-skip-push", "0.01"}, func(t *testing.T, tg target, s runSummary) {
			want := tg.counter(t, "imbench_target_fault_skipped_pushes_total")
			if want == 0 || s.Deliveries.Lost != 0 || s.Deliveries.ByGapPull != want {
				t.Fatalf("target skipped %d pushes; pulled after a gap %d, lost %d", want, s.Deliveries.ByGapPull, s.Deliveries.Lost)
			}
		}},
		{"duplicate", []string{"-fault-duplicate", "0.01"}, func(t *testing.T, tg target, s runSummary) {
			want := tg.counter(t, "imbench_target_fault_duplicated_pushes_total")
			if want == 0 || s.Deliveries.Duplicates != want || s.Deliveries.Lost != 0 {
				t.Fatalf("target duplicated %d pushes, summary says %d", want, s.Deliveries.Duplicates)
			}
		}},
		{"reorder", []string{"-fault-reorder", "0.05"}, func(t *testing.T, tg target, s runSummary) {
			want := tg.counter(t, "imbench_target_fault_reordered_pushes_total")
			if want == 0 || s.Deliveries.OutOfOrder != want || s.Deliveries.Lost != 0 || s.Deliveries.Duplicates != 0 {
				t.Fatalf("target reordered %d pushes, summary says %d out of order (dup %d lost %d)",
					want, s.Deliveries.OutOfOrder, s.Deliveries.Duplicates, s.Deliveries.Lost)
			}
		}},
		{"delay", []string{"-fault-delay", "50ms"}, func(t *testing.T, tg target, s runSummary) {
			if s.Latency.E2E.P50 <= 50 || s.Deliveries.Lost != 0 {
				t.Fatalf("e2e p50 %v ms with a 50 ms push delay", s.Latency.E2E.P50)
			}
		}},
		{"disconnect", []string{"-fault-disconnect-every", "400ms", "-fault-disconnect-count", "3"}, func(t *testing.T, tg target, s runSummary) {
			want := tg.counter(t, "imbench_target_fault_disconnects_total")
			if want == 0 || s.Users.Disconnects != want || s.Users.Reconnects == 0 || s.Deliveries.Lost != 0 {
				t.Fatalf("target dropped %d connections; summary: %d disconnects, %d reconnects, lost %d",
					want, s.Users.Disconnects, s.Users.Reconnects, s.Deliveries.Lost)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg := startTarget(t, c.flags...)
			// Lost deliveries cross the scenario's lost threshold on purpose.
			s := runScenario(t, tg, "0.5", "500", "-no-thresholds")
			c.check(t, tg, s)
		})
	}
}

// Bad input stops with one line and a non-zero exit before any load: the
// target saw no login and stored no message.
func TestBadInputStopsBeforeLoad(t *testing.T) {
	tg := startTarget(t)
	bad := filepath.Join(t.TempDir(), "bad.js")
	os.WriteFile(bad, []byte("import im from 'imbench';\nexport const plan = im.workload({name: 'x', classes: [{kind: 'online', users: 2}]});\n"+
		"export const options = { thresholds: { lsot: ['count==0'] } };\n"), 0o644)
	headed := filepath.Join(t.TempDir(), "headed.js")
	os.WriteFile(headed, []byte("// protocols: wildfire, wukongim\nimport im from 'imbench';\n"+
		"export const plan = im.workload({name: 'x', classes: [{kind: 'online', users: 2}]});\n"), 0o644)
	down := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	cases := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"unknown scenario", tg.env(), []string{"-scenario", "openim/nope"}, `unknown scenario "openim/nope"`},
		{"misspelt scenario", tg.env(), []string{"-scenario", "openim/tset1"}, `did you mean openim/test1?`},
		{"scale not a number", tg.env(), []string{"-scenario", "openim/test1", "-scale", "abc"}, `SCALE must be a positive number, got "abc"`},
		{"unknown target", tg.env(), []string{"-scenario", "openim/test1", "-target", "nope"}, `unknown target "nope"`},
		{"wrong secret", []string{"IM_API_URL=" + tg.api, "IM_WS_URL=" + tg.ws, "IM_SECRET=wrong"},
			[]string{"-scenario", "openim/test1"}, "rejected the admin secret"},
		{"target down", []string{"IM_API_URL=" + down, "IM_WS_URL=" + tg.ws, "IM_SECRET=x"},
			[]string{"-scenario", "openim/test1"}, "is not reachable"},
		{"remote target", []string{"IM_API_URL=http://10.1.2.3:10002", "IM_WS_URL=" + tg.ws, "IM_SECRET=x"},
			[]string{"-scenario", "openim/test1"}, "outside 127.0.0.0/8"},
		{"Wildfire MQTT at a port that is not MQTT", append(tg.env(), "IM_WILDFIRE_MQTT_URL=tcp://"+strings.TrimPrefix(tg.api, "http://")),
			[]string{"-scenario", "wildfire/group100"}, `answers, but not as Wildfire's MQTT: a CONNECT was answered in HTTP ("HTTP/1.1 400 Bad Request"), not with a CONNACK`},
		{"OpenIM gateway at an HTTP port that is not msggateway", append(tg.env(), "IM_WS_URL=ws://"+strings.TrimSuffix(strings.TrimPrefix(tg.metrics, "http://"), "/metrics")),
			[]string{"-scenario", "openim/test1"}, "answers, but not as msggateway: a WebSocket upgrade was answered"},
		{"OpenIM gateway at a port that is not HTTP", append(tg.env(), "IM_WS_URL=ws://"+strings.TrimPrefix(tg.wfMQTT, "tcp://")),
			[]string{"-scenario", "openim/test1"}, "answers, but not as msggateway: no HTTP answer to a WebSocket upgrade"},
		{"WuKongIM TCP at an MQTT port", append(tg.env(), "IM_WUKONGIM_TCP_URL="+tg.wfMQTT),
			[]string{"-scenario", "wukongim/send"}, "WuKongIM tcp endpoint at " + tg.wfMQTT + " answers, but not as WuKongIM: "},
		{"WuKongIM TCP at an HTTP port", append(tg.env(), "IM_WUKONGIM_TCP_URL=tcp://"+strings.TrimPrefix(tg.api, "http://")),
			[]string{"-scenario", "wukongim/send"}, "answers, but not as WuKongIM: "},
		{"wrong Wildfire secret", append(tg.env(), "IM_SECRET=wrong"), []string{"-scenario", "wildfire/group100"},
			`code 244 "auth failure": the server refused the signature: check IM_SECRET (http.admin.secret_key)`},
		{"threshold on no metric", tg.env(), []string{"-scenario", bad}, `threshold on "lsot": unknown metric`},
		{"protocol its header leaves out", tg.env(), []string{"-scenario", headed, "-protocol", "openim"},
			`runs only over wildfire or wukongim (its // protocols: header), not openim`},
		{"bad segment", tg.env(), []string{"-scenario", "openim/test1", "-segment", "3/3"}, `segment "3/3"`},
		{"stray argument", tg.env(), []string{"-scenario", "openim/test1", "--", "-o", "x"}, `unexpected arguments`},
		// A real open-im-server registers no user id with '-': a run id
		// that would make one is refused before load.
		{"run id OpenIM refuses", tg.env(), []string{"-scenario", "openim/test1", "-run-id", "2026-11-27"}, `OpenIM refuses any other character in a user id`},
	}
	// An HTTP server answers 400 to a CONNECT whose bytes hold a newline
	// (its timestamp's may) and waits for the rest otherwise: the line names
	// one of the two (TestPreflightNamesAnHTTPAnswer holds the first).
	oneOf := map[string][]string{"WuKongIM TCP at an HTTP port": {
		`a CONNECT was answered in HTTP ("HTTP/1.1 400 Bad Request"), not with a CONNACK`,
		"no CONNACK to the manager's CONNECT within 5 s",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			results := t.TempDir()
			r := imbench(t, c.env, append([]string{"run", "-results", results}, c.args...)...)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "imbench: ") || !strings.Contains(lines[0], c.want) {
				t.Fatalf("exit %d, stderr %q; want one line containing %q", r.code, r.stderr, c.want)
			}
			if alts, ok := oneOf[c.name]; ok && !strings.Contains(lines[0], alts[0]) && !strings.Contains(lines[0], alts[1]) {
				t.Fatalf("stderr %q; want one of %q", lines[0], alts)
			}
			if n := tg.counter(t, `imbench_target_ws_logins_total{result="ok"}`) + tg.counter(t, "imbench_target_messages_stored_total"); n != 0 {
				t.Fatalf("load started: %d logins and messages on the target", n)
			}
			if entries, _ := os.ReadDir(results); len(entries) != 0 {
				t.Fatalf("left results behind: %v", entries)
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The same scenario as one process and as three segment processes: the segments hold every user exactly once (the merge checks
// their user ranges; the target saw each user log in once), and the figures
// that count add up to the single process's.
func TestSegmentsAddUpToOneProcess(t *testing.T) {
	tg := startTarget(t)
	single := runScenario(t, tg, "0.25", "100")
	loginsBefore := tg.counter(t, `imbench_target_ws_logins_total{result="ok"}`)

	results := t.TempDir()
	env := append(tg.env(), "IM_LOGIN_WINDOW=4s", "IM_SEND_MARGIN=4s")
	r := imbench(t, env, "run", "-scenario", "openim/test1", "-scale", "0.25", "-rate", "100", "-segments", "3", "-results", results)
	if r.code != 0 {
		t.Fatalf("segments: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// Merged, the split run removes what it made, as one process does.
	if _, err := os.Stat(filepath.Join(results, "latest", runner.TeardownFile)); err != nil || !strings.Contains(r.stdout, "imbench: removed from") {
		t.Fatalf("the split run did not clean up (%v):\n%s\n%s", err, r.stdout, r.stderr)
	}
	raw, err := os.ReadFile(filepath.Join(results, "latest", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var merged struct {
		runSummary
		Parts     []string `json:"parts"`
		Generator struct {
			UserRanges [][2]int `json:"user_ranges"`
		} `json:"generator"`
	}
	if err := json.Unmarshal(raw, &merged); err != nil {
		t.Fatal(err)
	}
	if len(merged.Parts) != 3 || len(merged.Generator.UserRanges) != 3 {
		t.Fatalf("parts %v ranges %v", merged.Parts, merged.Generator.UserRanges)
	}
	held := map[int]int{}
	for _, rg := range merged.Generator.UserRanges {
		for u := rg[0]; u < rg[1]; u++ {
			held[u]++
		}
	}
	for u := 0; u < single.Users.Registered; u++ {
		if held[u] != 1 {
			t.Fatalf("user %d held by %d segments (ranges %v)", u, held[u], merged.Generator.UserRanges)
		}
	}
	if logins := tg.counter(t, `imbench_target_ws_logins_total{result="ok"}`) - loginsBefore; logins != int64(single.Users.Registered) {
		t.Fatalf("the target saw %d logins for %d users", logins, single.Users.Registered)
	}
	s, m := single.Deliveries, merged.Deliveries
	if s.Expected == 0 || s.Expected != m.Expected || s.Received != m.Received || s.Lost != m.Lost ||
		single.Messages.Sent != merged.Messages.Sent {
		t.Fatalf("one process: expected %d received %d lost %d sent %d; three: expected %d received %d lost %d sent %d",
			s.Expected, s.Received, s.Lost, single.Messages.Sent, m.Expected, m.Received, m.Lost, merged.Messages.Sent)
	}
	if merged.Latency.E2E.Count != m.Pushed || merged.Latency.E2E.P99 <= 0 {
		t.Fatalf("merged latency %+v for %d pushed deliveries", merged.Latency.E2E, m.Pushed)
	}

	// Runners started elsewhere (a Kubernetes Indexed Job's pods) leave only
	// the partial summaries: imbench merge and the report merge them, and
	// refuse a missing part.
	dir, _ := filepath.EvalSymlinks(filepath.Join(results, "latest"))
	os.Remove(filepath.Join(dir, "summary.json"))
	if r := imbench(t, nil, "report", "-run", filepath.Base(dir), "-results", results); r.code != 0 {
		t.Fatalf("report from partials: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	again, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil || !bytes.Equal(again, raw) {
		t.Fatalf("the report's merge differs from the run's (%v)", err)
	}
	// A missing part (its process was killed): the others' results are kept,
	// the missing segment named, and the exit is not 0.
	os.Remove(filepath.Join(dir, "summary.json"))
	os.Remove(filepath.Join(dir, "summary-1_3-2_3.json"))
	r = imbench(t, nil, "report", "-run", filepath.Base(dir), "-results", results)
	if r.code == 0 || !strings.Contains(r.stderr, "segment(s) 1/3:2/3 wrote no summary") {
		t.Fatalf("a missing part: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var partial struct {
		runSummary
		Missing []string `json:"missing_parts"`
	}
	raw, err = os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil || json.Unmarshal(raw, &partial) != nil || len(partial.Missing) != 1 || partial.Messages.Sent == 0 ||
		partial.Messages.Sent >= merged.Messages.Sent {
		t.Fatalf("partial summary (%v): missing %v, sent %d of %d", err, partial.Missing, partial.Messages.Sent, merged.Messages.Sent)
	}
	if md, _ := os.ReadFile(filepath.Join(dir, "report.md")); !strings.Contains(string(md), "1/3:2/3 of 3 wrote no summary") {
		t.Fatalf("the report does not name the missing segment:\n%s", md)
	}
}

// Every scenario `make scenarios` lists runs verified at a tiny size against
// one reference target: exit 0 (its thresholds held), every expected
// delivery received and none lost.
func TestEveryScenarioRunsVerifiedAtATinySize(t *testing.T) {
	names, err := func() ([]string, error) {
		wd, _ := os.Getwd()
		defer os.Chdir(wd)
		os.Chdir("../..")
		return catalog.Names()
	}()
	if err != nil || len(names) == 0 {
		t.Fatalf("scenarios: %v %v", names, err)
	}
	tiny := map[string][]string{
		"openim/test1":            {"IM_SCALE=0.05"}, // its groups of 5 need 5 users
		"openim/test3":            {"IM_SCALE=0.002"},
		"openim/test3-zh":         {"IM_SCALE=0.01", "IM_DURATION=5s"},
		"wildfire/c1000k":         {"IM_SCALE=0.0002", "IM_HOLD=3s"},
		"openim/hold":             {"IM_USERS=20", "IM_HOLD=3s"},
		"openim/storm":            {"IM_SCALE=0.1", "IM_DURATION=6s", "IM_STORM_AT=2s"},
		"wukongim/mixed":          {"IM_SCALE=0.01", "IM_DURATION=4s"},
		"wukongim/mixed-wkstress": {"IM_SCALE=0.01", "IM_DURATION=4s"},
		"wukongim/stability":      {"IM_SCALE=0.01", "IM_DURATION=4s"},
		"wukongim/reliability":    {"IM_SCALE=0.01", "IM_DURATION=4s"},
		// A limit search's scenario as one run at its first step's load.
		"openim/online-limit":        {"IM_USERS=20", "IM_HOLD=3s"},
		"wukongim/send-limit":        {"IM_SCALE=0.01", "IM_DURATION=3s"},
		"wukongim/receive-limit":     {"IM_SCALE=0.01", "IM_DURATION=3s"},
		"wildfire/single-send-limit": {"IM_SCALE=0.02", "IM_DURATION=3s"},
		"wildfire/group-limit":       {"IM_SCALE=0.01", "IM_DURATION=3s"},
	}
	tg := startTarget(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			env := append(tg.env(), "IM_DRAIN_QUIET=1s")
			env = append(env, tiny[name]...)
			if tiny[name] == nil {
				env = append(env, "IM_SCALE=0.01")
			}
			results := t.TempDir()
			r := imbench(t, env, "run", "-scenario", name, "-results", results)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			raw, err := os.ReadFile(filepath.Join(results, "latest", "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			var s runSummary
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatal(err)
			}
			// A send whose acknowledgement a drop cut off (openim/storm) may
			// still be delivered: counted apart, as unexpected, and only then;
			// one answered too late, as of an unanswered send.
			d, m := s.Deliveries, s.Messages
			if d.Lost != 0 || d.Received != d.Expected+d.Unexpected+d.OfUnanswered || (d.Unexpected > 0 && m.SendFailed == 0) ||
				(d.OfUnanswered > 0 && m.Unanswered == 0) || s.Users.OnlinePeak == 0 {
				t.Fatalf("expected %d received %d (unexpected %d, %d sends failed; %d of %d unanswered) lost %d, online peak %d", d.Expected, d.Received,
					d.Unexpected, m.SendFailed, d.OfUnanswered, m.Unanswered, d.Lost, s.Users.OnlinePeak)
			}
			// A chatroom's misses are a rate, not a failure; the clean
			// target drops nothing, so here they are none.
			if r := s.Deliveries.Rooms; r != nil && (r.Expected == 0 || r.Missed != 0 || r.Received != r.Expected) {
				t.Fatalf("chatrooms: %+v", *r)
			}
		})
	}
}

// A mistake in the scenario, its knobs or the environment is said first,
// by its field or variable, before any target is contacted: against a
// target that is down, the line names the mistake, not the target.
func TestScenarioMistakesComeBeforeTheTarget(t *testing.T) {
	dir := t.TempDir()
	write := func(name, class, extra string) string {
		p := filepath.Join(dir, name+".js")
		os.WriteFile(p, []byte("import im from 'imbench';\nimport { planKnobs } from 'imbench/env';\n"+
			"export const plan = im.workload({name: 'x', ...planKnobs(__ENV), classes: ["+class+"]});\n"+extra), 0o644)
		return p
	}
	const ok = "{kind: 'pairs', pairs: 2, allOnline: true, rate: 1, duration: '5s'}"
	down := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	env := []string{"IM_API_URL=" + down, "IM_WS_URL=ws" + strings.TrimPrefix(down, "http"), "IM_SECRET=x", "IMBENCH_NO_OBSERVE=1"}
	cases := []struct {
		name, class string
		env         []string
		want        string
		extra       string
	}{
		{"a count of 0", "{kind: 'pairs', pairs: 0, allOnline: true, rate: 1, duration: '5s'}", nil, `class 1 (pairs): pairs must be 1 or more, got 0`, ""},
		{"NaN", "{kind: 'groups', groups: 1, members: Number('x'), allOnline: true, rate: 1, duration: '5s'}", nil, `field "classes[0].members" is NaN`, ""},
		{"a misspelt field", "{kind: 'pairs', paris: 2, allOnline: true, rate: 1, duration: '5s'}", nil, `paris`, ""},
		{"a negative duration knob", ok, []string{"IM_DURATION=-1"}, `IM_DURATION must be a positive duration (30s, 2m, 1h30m), got "-1"`, ""},
		{"an infinite rate knob", ok, []string{"IM_RATE=Infinity"}, `IM_RATE must be a positive number, got "Infinity"`, ""},
		{"a handleSummary name outside the run", ok, nil, `handleSummary would write "../../x": a relative name is inside the run's folder`,
			"export function handleSummary(d) { return { '../../x': JSON.stringify(d.messages) }; }\n"},
		{"a handleSummary name of the runner's", ok, nil, `handleSummary would write "summary.json": that is the runner's own file`,
			"export function handleSummary(d) { return { 'summary.json': '{}' }; }\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			results := t.TempDir()
			r := imbench(t, append(append([]string(nil), env...), c.env...), "run", "-results", results, "-scenario", write(strings.ReplaceAll(c.name, " ", "_"), c.class, c.extra))
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) || strings.Contains(lines[0], "not reachable") {
				t.Fatalf("exit %d, stderr %q; want one line containing %q", r.code, r.stderr, c.want)
			}
			if entries, _ := os.ReadDir(results); len(entries) != 0 {
				t.Fatalf("left results behind: %v", entries)
			}
		})
	}
}

// A run id names one run: a second run with it is refused before load, in
// one line, and the first run's files stay as they were.
func TestRunIDIsNeverReused(t *testing.T) {
	tg := startTarget(t)
	results := t.TempDir()
	first := filepath.Join(results, "once", "summary.json")
	os.MkdirAll(filepath.Dir(first), 0o755)
	os.WriteFile(first, []byte("{}\n"), 0o644)
	r := imbench(t, tg.env(), "run", "-scenario", "openim/test1", "-results", results, "-run-id", "once")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], "run id once names an earlier run") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if raw, _ := os.ReadFile(first); string(raw) != "{}\n" || tg.counter(t, `imbench_target_ws_logins_total{result="ok"}`) != 0 {
		t.Fatalf("the earlier run's summary %q, or load started", raw)
	}
}
