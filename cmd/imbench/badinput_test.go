package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/testmachine"
)

// Bad input stops with one line and a non-zero exit before any load: the
// target saw no login and stored no message.
func TestBadInputStopsBeforeLoad(t *testing.T) {
	testmachine.Shared(t)
	tg := startTarget(t)
	bad := filepath.Join(t.TempDir(), "bad.js")
	os.WriteFile(bad, []byte("import im from 'imbench';\nexport const plan = im.workload({name: 'x', classes: [{kind: 'online', users: 2}]});\n"+
		"export const options = { thresholds: { lsot: ['count==0'] } };\n"), 0o644)
	headed := filepath.Join(t.TempDir(), "headed.js")
	os.WriteFile(headed, []byte("// protocols: wildfire, wukongim\nimport im from 'imbench';\n"+
		"export const plan = im.workload({name: 'x', classes: [{kind: 'online', users: 2}]});\n"), 0o644)
	down := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	notDir := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(notDir, nil, 0o644)
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
			[]string{"-scenario", "wukongim/send"}, "WuKongIM tcp endpoint at " + tg.wfMQTT + " closed the connection without a CONNACK to the manager's CONNECT in each of 4 attempts"},
		{"WuKongIM TCP at an HTTP port", append(tg.env(), "IM_WUKONGIM_TCP_URL=tcp://"+strings.TrimPrefix(tg.api, "http://")),
			[]string{"-scenario", "wukongim/send"}, "answers, but not as WuKongIM: "},
		{"wrong Wildfire secret", append(tg.env(), "IM_SECRET=wrong"), []string{"-scenario", "wildfire/group100"},
			`code 244 "auth failure": the server refused the signature: check IM_SECRET (http.admin.secret_key)`},
		{"threshold on no metric", tg.env(), []string{"-scenario", bad}, `threshold on "lsot": unknown metric`},
		{"protocol its header leaves out", tg.env(), []string{"-scenario", headed, "-protocol", "openim"},
			`runs only over wildfire or wukongim (its // protocols: header), not openim`},
		{"bad segment", tg.env(), []string{"-scenario", "openim/test1", "-segment", "3/3"}, `segment "3/3"`},
		{"results folder under a file", tg.env(), []string{"-scenario", "openim/test1", "-results", filepath.Join(notDir, "results")}, "results folder " + notDir + "/results cannot be made"},
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

// A mistake in the scenario, its knobs or the environment is said first,
// by its field or variable, before any target is contacted: against a
// target that is down, the line names the mistake, not the target.
func TestScenarioMistakesComeBeforeTheTarget(t *testing.T) {
	testmachine.Shared(t)
	dir := t.TempDir()
	write := func(name, class, extra string) string {
		p := filepath.Join(dir, name+".js")
		os.WriteFile(p, []byte("import im from 'imbench';\nimport { planKnobs } from 'imbench/env';\n"+
			"export const plan = im.workload({name: 'x', ...planKnobs(__ENV), classes: ["+class+"]});\n"+extra), 0o644)
		return p
	}
	const ok = "{kind: 'pairs', pairs: 2, allOnline: true, rate: 1, duration: '5s'}"
	down := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	notDir := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(notDir, nil, 0o644)
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
	testmachine.Shared(t)
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
