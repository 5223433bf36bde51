package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/imbench/imbench/internal/testmachine"
	"github.com/imbench/imbench/load/cpulimit/cgtest"
	"github.com/imbench/imbench/load/limit"
	"github.com/imbench/imbench/load/runner"
)

// A generator in a cgroup with a CPU quota of 0.05 of a core (as a
// Kubernetes CPU limit makes it) is named as the limit, its quota and
// throttling said, not the machine nor the server.
func TestLimitNamesAGeneratorHeldByItsCPUQuota(t *testing.T) {
	testmachine.Alone(t)
	dir := cgtest.QuotaCgroup(t, 0.05)
	tg := startTarget(t)
	results := t.TempDir()
	script := "echo $$ > " + filepath.Join(dir, "cgroup.procs") + ` && exec "$0" "$@"`
	cmd := exec.Command("sh", "-c", script, filepath.Join(toolsDir(t), "imbench"), "limit", "-scenario", mustAbs(t, "testdata/limit-pairs.js"),
		"-protocol", "openim", "-start", "100", "-step", "8s", "-slo", "e2e_p99<100,lost==0", "-max", "800", "-q", "-results", results)
	cmd.Dir = "../.."
	cmd.Env = append(append(os.Environ(), tg.env()...), "IMBENCH_NO_OBSERVE=1")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 0) {
		t.Fatalf("%v\n%s", err, out)
	}
	res := readLimit(t, results, string(out))
	if !res.GeneratorLimited || !res.Saturated.Generator || res.Saturated.Component != "imbench" ||
		!strings.Contains(res.Saturated.Why, "held back by its CPU quota") || !strings.Contains(res.Saturated.Why, "0.05 of a core") {
		t.Fatalf("result %+v\n%s", res, out)
	}
	if !strings.Contains(string(out), "imbench: the generator may use 0.05 of a core: the CPU quota of its cgroup /imbench-test-") {
		t.Fatalf("the quota is not said:\n%s", out)
	}
}

// readResult is a search's whole limit.json.
func readResult(t *testing.T, results, out string) limit.Result {
	t.Helper()
	readLimit(t, results, out)
	dirs, _ := filepath.Glob(filepath.Join(results, "*", "limit.json"))
	r, err := limit.Load(filepath.Dir(dirs[0]))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// With a second reference target beside it, busy with work of its own, the
// search measures its own target alone: its limit, its CPU column (the
// listening owner's PID, the neighbour counted as the machine) and its
// settle waits are its own target's.
func TestLimitMeasuresItsOwnTargetAlone(t *testing.T) {
	testmachine.Alone(t)
	nb, nbArgs := targetArgs(t, "-fault-busy", "0.3")
	neighbour := launchTarget(t, nb, nbArgs)
	tg, args := targetArgs(t, "-fault-capacity", "300")
	own := launchTarget(t, tg, args)
	results := t.TempDir()
	r := imbench(t, append(tg.env(), "IMBENCH_NO_OBSERVE=1"), "limit", "-scenario", mustAbs(t, "testdata/limit-pairs.js"),
		"-protocol", "wukongim", "-start", "100", "-resolution", "0.1", "-step", "5s", "-slo", "e2e_p99<100,lost==0", "-q", "-results", results)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	res := readResult(t, results, r.stdout)
	if res.Limit < 270 || res.Limit > 330 || res.Saturated.Component != "imbench-target" {
		t.Fatalf("limit %g, saturated %+v\n%s", res.Limit, res.Saturated, r.stdout)
	}
	want := fmt.Sprintf("the target measured: imbench-target (PID %d)", own.Process.Pid)
	if !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "other process") {
		t.Fatalf("no %q:\n%s", want, r.stdout)
	}
	for _, st := range res.Steps {
		var u *limit.Usage
		for i := range st.Usage {
			if st.Usage[i].Component == "imbench-target" {
				u = &st.Usage[i]
			}
		}
		if u == nil || len(u.PIDs) != 1 || u.PIDs[0] != own.Process.Pid || u.Processes != 1 || u.Others < 1 {
			t.Fatalf("step %d measured %+v (own PID %d, the neighbour's %d)", st.N, u, own.Process.Pid, neighbour.Process.Pid)
		}
		// The target spends 1/300 s of a core on a message; the neighbour
		// spins 30 % of a core: counted in, the CPU column of a step below
		// the capacity would show it.
		if st.Asked <= 270 && u.CPUAvg > 100*st.Asked/300+20 {
			t.Fatalf("step %d at %g msg/s: the target's CPU %.0f %% (the neighbour's counted in?)", st.N, st.Asked, u.CPUAvg)
		}
		if st.Settled > 20 {
			t.Fatalf("step %d waited %.0f s for the server to settle: the neighbour's CPU was waited on", st.N, st.Settled)
		}
	}
	if !strings.Contains(limit.MeasuredText(res), fmt.Sprintf("imbench-target: PID %d", own.Process.Pid)) {
		t.Fatalf("measured: %s", limit.MeasuredText(res))
	}
}

// A users search against a reference target whose open files are capped
// below the users asked (started under ulimit -n) names the server's
// open-files limit; with the generator's capped instead, the generator's.
func TestLimitNamesTheOpenFilesLimit(t *testing.T) {
	testmachine.Shared(t) // open files run out whatever runs beside the search
	search := func(t *testing.T, tg target, wrap string) (limit.Result, string) {
		results := t.TempDir()
		args := []string{"limit", "-scenario", "openim/online-limit", "-start", "150", "-max", "1600", "-resolution", "0.3", "-step", "5s", "-q", "-results", results}
		cmd := exec.Command("sh", append([]string{"-c", wrap + `exec "$0" "$@"`, filepath.Join(toolsDir(t), "imbench")}, args...)...)
		cmd.Dir = "../.."
		cmd.Env = append(append(os.Environ(), tg.env()...), "IMBENCH_NO_OBSERVE=1", "IM_LOGIN_RETRIES=1")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 0) {
			t.Fatalf("%v\n%s", err, out)
		}
		return readResult(t, results, string(out)), string(out)
	}
	t.Run("server", func(t *testing.T) {
		testmachine.Shared(t)
		tg, args := targetArgs(t)
		launchTargetUnder(t, tg, args, "ulimit -n 300; ")
		res, out := search(t, tg, "")
		if res.Saturated.Rule != limit.RuleServerOpenFiles || res.Saturated.Component != "imbench-target" || res.Saturated.Generator ||
			!strings.Contains(res.Saturated.Why, " of 300 ") || res.Limit < 100 || res.Limit >= 300 {
			t.Fatalf("limit %g, saturated %+v\n%s", res.Limit, res.Saturated, out)
		}
	})
	t.Run("generator", func(t *testing.T) {
		testmachine.Shared(t)
		tg := startTarget(t)
		res, out := search(t, tg, "ulimit -n 300; ")
		if res.Saturated.Rule != limit.RuleGeneratorOpenFiles || res.Saturated.Component != "imbench" || !res.Saturated.Generator ||
			!strings.Contains(res.Saturated.Why, "ulimit -n 300") || res.Limit >= 300 {
			t.Fatalf("limit %g, saturated %+v\n%s", res.Limit, res.Saturated, out)
		}
	})
}

// Beside a CPU hog that takes a whole core of the machine, the search
// either finds the capacity within ±10 % or says it is undetermined on
// this machine: never a limit below the capacity blamed on the server.
func TestLimitBesideACPUHog(t *testing.T) {
	testmachine.Alone(t)
	// A shell spinning, in a process group of its own that the clean-up
	// kills whole (timeout bounds it should the test itself be killed).
	hog := exec.Command("timeout", "600", "sh", "-c", "while :; do :; done")
	hog.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-hog.Process.Pid, syscall.SIGKILL); hog.Wait() })
	const capacity = 300.0
	tg := startTarget(t, "-fault-capacity", "300")
	results := t.TempDir()
	r := imbench(t, append(tg.env(), "IMBENCH_NO_OBSERVE=1"), "limit", "-scenario", mustAbs(t, "testdata/limit-pairs.js"),
		"-protocol", "wukongim", "-start", "100", "-resolution", "0.1", "-step", "5s", "-slo", "e2e_p99<100,lost==0", "-retries", "1", "-q", "-results", results)
	res := readResult(t, results, r.stdout)
	if want := map[bool]int{true: limit.ExitUndetermined, false: 0}[res.Undetermined]; r.code != want && (res.Undetermined || r.code != runner.ExitThresholds) {
		t.Fatalf("exit %d (undetermined %v)\n%s\n%s", r.code, res.Undetermined, r.stdout, r.stderr)
	}
	t.Logf("limit %g, undetermined %v, highest held %g; %s", res.Limit, res.Undetermined, res.HighestHeld, limit.ResultLine(res))
	switch {
	case res.Undetermined:
		if res.Limit != 0 || !strings.Contains(r.stdout, "undetermined on this machine") {
			t.Fatalf("undetermined with a limit of %g:\n%s", res.Limit, r.stdout)
		}
	case res.Limit < 0.9*capacity && !res.Saturated.Generator && res.Saturated.Component != "the machine":
		t.Fatalf("a limit of %g below the capacity of %g blamed on %s:\n%s", res.Limit, capacity, res.Saturated.Component, r.stdout)
	case res.Limit > 1.1*capacity:
		t.Fatalf("a limit of %g above the capacity of %g:\n%s", res.Limit, capacity, r.stdout)
	}
	var disturbed int
	for _, st := range res.Steps {
		if st.Disturbed != "" {
			disturbed++
		}
	}
	t.Logf("%d of %d steps disturbed", disturbed, len(res.Steps))
}
