package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/internal/testmachine"
	"github.com/imbench/imbench/load/limit"
	"github.com/imbench/imbench/report"
)

// Three "servers", reference targets of capacities 100, 200 and 400 msg/s,
// each over a protocol of its own, its settings (its secret from the
// environment) in the servers file, the workload 600 pairs each sending
// less than a message a second at any rate tried: every server is run
// with its own, its search finds its capacity within ±10 % (each step
// puts out the rate it asks), and every column is its server's own
// summary's and limit.json's, the report giving the numbers. (How the
// comparison orders and stops its servers is report/comparison's test.)
func TestCompareServersSideBySide(t *testing.T) {
	testmachine.Alone(t)
	capacities := []float64{100, 200, 400}
	var servers strings.Builder
	servers.WriteString("servers:\n")
	hooks := t.TempDir()
	var targets []target
	env := []string{"IMBENCH_NO_OBSERVE=1", "LIMIT_PAIRS=600"}
	for i, proto := range []string{"openim", "wukongim", "wildfire"} {
		tg := startTarget(t, "-fault-capacity", fmt.Sprint(capacities[i]))
		targets = append(targets, tg)
		fmt.Fprintf(&servers, "  - name: s%d\n    target: reference\n    protocol: %s\n    notes: [\"reference %d\"]\n", i+1, proto, i+1)
		if i == 1 { // the commands run before a server's turn and before each step of its search
			fmt.Fprintf(&servers, "    version: ref-2\n    before: echo $IMBENCH_SERVER > %s/before\n    before_step: echo $IMBENCH_STEP >> %s/steps\n", hooks, hooks)
		}
		servers.WriteString("    env:\n")
		for _, kv := range tg.env() {
			k, v, _ := strings.Cut(kv, "=")
			if k == "IM_SECRET" {
				env = append(env, fmt.Sprintf("SECRET_%d=%s", i, v))
				v = fmt.Sprintf("${SECRET_%d}", i) // a secret stays out of the file
			}
			fmt.Fprintf(&servers, "      %s: %q\n", k, v)
		}
	}
	file := filepath.Join(t.TempDir(), "servers.yaml")
	if err := os.WriteFile(file, []byte(servers.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	results := t.TempDir()
	r := imbench(t, env, "compare-servers", "-scenario", mustAbs(t, "testdata/limit-pairs.js"), "-servers", file, "-rate", "40", "-duration", "3s",
		"-start", "50", "-resolution", "0.1", "-step", "5s", "-slo", "e2e_p99<100,lost==0", "-run-id", "cmp", "-q", "-results", results)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	raw, err := os.ReadFile(filepath.Join(results, "cmp", "comparison.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c report.Comparison
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Servers) != 3 {
		t.Fatalf("%d servers", len(c.Servers))
	}
	for i, col := range c.Servers {
		if n := targets[i].counter(t, `imbench_target_ws_logins_total{result="ok"}`); n == 0 {
			t.Errorf("%s: its target saw no login", col.Name)
		}
		if c := capacities[i]; col.Limit < 0.9*c || col.Limit > 1.1*c || col.Generator || col.Undetermined {
			t.Errorf("%s: limit %g (generator %v, undetermined %v) for a capacity of %g\n%s", col.Name, col.Limit, col.Generator, col.Undetermined, c, r.stdout)
		}
		s, err := summary.Load(filepath.Join(results, col.RunID, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		d := s.Deliveries
		if col.Expected != d.Expected || col.Received != d.Received || col.Lost != d.Lost || col.Sent != s.Messages.Sent || col.E2E != s.Latency.E2E ||
			col.Ack != s.Latency.Ack || col.Integrity == nil || *col.Integrity != s.Integrity || col.Exit != 0 || !strings.Contains(col.Verdict, "passed") {
			t.Errorf("%s: the column is not its summary's:\n%+v", col.Name, col)
		}
		if tot := col.CPUPerKDeliveries["total"]; tot <= 0 || math.IsInf(tot, 0) || col.MemoryPerUser <= 0 {
			t.Errorf("%s: CPU per 1,000 deliveries %v, memory per user %g", col.Name, col.CPUPerKDeliveries, col.MemoryPerUser)
		}
	}
	before, _ := os.ReadFile(filepath.Join(hooks, "before"))
	steps, _ := os.ReadFile(filepath.Join(hooks, "steps"))
	if string(before) != "s2\n" || strings.Count(string(steps), "\n") != len(c.Servers[1].Steps) || c.Servers[0].BeforeStep != "" || c.Servers[1].ServerVersion != "ref-2" {
		t.Errorf("before %q; before each of %d steps %q; the others' %q", before, len(c.Servers[1].Steps), steps, c.Servers[0].BeforeStep)
	}
	for _, want := range []string{"reference 3", "reference target speaking wukongim", "s2: before its turn, `echo $IMBENCH_SERVER",
		"s2: before each step of its search, `echo $IMBENCH_STEP"} {
		if !strings.Contains(strings.Join(c.Fairness, "\n"), want) {
			t.Errorf("fairness lacks %q: %v", want, c.Fairness)
		}
	}
	md, _ := os.ReadFile(filepath.Join(results, "cmp", "comparison.md"))
	for _, col := range c.Servers {
		if want := limit.LoadText(col.Limit, "rate") + " (held again) / " + limit.LoadText(col.Knee, "rate"); !strings.Contains(string(md), want) {
			t.Errorf("comparison.md does not give %s's limit and knee (%s):\n%s", col.Name, want, md)
		}
	}
	page, err := os.ReadFile(filepath.Join(results, "cmp", "comparison.html"))
	if err != nil || !strings.Contains(string(page), `data-servers="3"`) || !strings.Contains(string(page), "../cmp_2l/limit.html") {
		t.Fatalf("comparison.html (%v)", err)
	}
}

// A mistake in the last server's settings is said before the first server
// is loaded.
func TestCompareServersChecksEveryServerFirst(t *testing.T) {
	testmachine.Shared(t)
	tg := startTarget(t)
	file := filepath.Join(t.TempDir(), "servers.yaml")
	var b strings.Builder
	b.WriteString("servers:\n")
	serverEntry(&b, tg, "good", "protocol: openim")
	b.WriteString("  - name: bad\n    target: reference\n    protocol: wukongim\n    env:\n      IM_SECRET: wrong\n")
	for _, kv := range tg.env() {
		if k, v, _ := strings.Cut(kv, "="); k != "IM_SECRET" {
			fmt.Fprintf(&b, "      %s: %q\n", k, v)
		}
	}
	os.WriteFile(file, []byte(b.String()), 0o644)
	for _, c := range []struct{ servers, want string }{
		{file, "server bad: "},
		{"/nonexistent.yaml", "servers file /nonexistent.yaml: no such file"},
	} {
		results := t.TempDir()
		r := imbench(t, nil, "compare-servers", "-scenario", mustAbs(t, "testdata/limit-pairs.js"), "-servers", c.servers, "-results", results)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("exit %d, stderr %q; want one line with %q", r.code, r.stderr, c.want)
		}
		if n := tg.counter(t, `imbench_target_ws_logins_total{result="ok"}`); n != 0 {
			t.Errorf("%d logins before the checks ended", n)
		}
		if entries, _ := os.ReadDir(results); len(entries) != 0 {
			t.Errorf("left results behind: %v", entries)
		}
	}
}

// A server whose before command fails is not loaded, and the comparison
// stops with the command's log named.
func TestCompareServersStopsWhereItsBeforeFails(t *testing.T) {
	testmachine.Shared(t)
	tg := startTarget(t)
	file := filepath.Join(t.TempDir(), "servers.yaml")
	var b strings.Builder
	b.WriteString("servers:\n")
	serverEntry(&b, tg, "one", "protocol: wukongim", "before: echo cannot start it; exit 3")
	os.WriteFile(file, []byte(b.String()), 0o644)
	results := t.TempDir()
	r := imbench(t, []string{"IMBENCH_NO_OBSERVE=1"}, "compare-servers", "-scenario", mustAbs(t, "testdata/limit-pairs.js"), "-servers", file,
		"-run-id", "cmp", "-q", "-results", results)
	log, _ := os.ReadFile(filepath.Join(results, "cmp", "one-before.log"))
	if r.code == 0 || !strings.Contains(r.stderr, "server one: the before command failed (exit status 3)") || string(log) != "cannot start it\n" {
		t.Errorf("exit %d, stderr %q, log %q", r.code, r.stderr, log)
	}
	if n := tg.counter(t, `imbench_target_ws_logins_total{result="ok"}`); n != 0 {
		t.Errorf("%d logins after the before command failed", n)
	}
	if _, err := os.Stat(filepath.Join(results, "cmp", "comparison.json")); err == nil {
		t.Error("a comparison of servers that did not run")
	}
}

// serverEntry writes a servers file's entry for the reference target tg:
// its name, the lines given, and every setting of tg.
func serverEntry(b *strings.Builder, tg target, name string, lines ...string) {
	fmt.Fprintf(b, "  - name: %s\n    target: reference\n", name)
	for _, l := range lines {
		b.WriteString("    " + l + "\n")
	}
	b.WriteString("    env:\n")
	for _, kv := range tg.env() {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(b, "      %s: %q\n", k, v)
	}
}
