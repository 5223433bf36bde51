package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/internal/testmachine"
	"github.com/imbench/imbench/load/cpulimit/cgtest"
	"github.com/imbench/imbench/load/limit"
)

// A generator in a cgroup with a CPU quota of 0.3 of a core (as a
// Kubernetes CPU limit makes it) against an uncapped target: every step
// that put out its load within the objective holds, however often the
// quota throttled it; the limit is the most load such a step put out, and
// the quota is named as what stopped the search, not the server.
func TestLimitNamesAGeneratorHeldByItsCPUQuota(t *testing.T) {
	testmachine.Alone(t)
	dir := cgtest.QuotaCgroup(t, 0.3)
	tg := startTarget(t)
	results := t.TempDir()
	script := "echo $$ > " + filepath.Join(dir, "cgroup.procs") + ` && exec "$0" "$@"`
	cmd := exec.Command("sh", "-c", script, filepath.Join(toolsDir(t), "imbench"), "limit", "-scenario", mustAbs(t, "testdata/limit-pairs.js"),
		"-protocol", "openim", "-start", "200", "-step", "8s", "-slo", "e2e_p99<1000,lost==0", "-max", "12800", "-q", "-results", results)
	cmd.Dir = "../.."
	cmd.Env = append(append(os.Environ(), tg.env()...), "IMBENCH_NO_OBSERVE=1")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 0) {
		t.Fatalf("%v\n%s", err, out)
	}
	res := readResult(t, results, string(out))
	if !res.GeneratorLimited || !res.Saturated.Generator || res.Saturated.Component != "imbench" ||
		!strings.Contains(res.Saturated.Why, "held back by its CPU quota") || !strings.Contains(res.Saturated.Why, "0.3 of a core") {
		t.Fatalf("generator limited %v, saturated %+v\n%s", res.GeneratorLimited, res.Saturated, out)
	}
	most := 0.0
	for _, st := range res.Steps {
		if st.Held {
			most = max(most, st.Asked)
		}
		if st.Held && st.Achieved < 0.95*st.Asked {
			t.Fatalf("step %d held, sending %g of %g\n%s", st.N, st.Achieved, st.Asked, out)
		}
	}
	if res.Limit == 0 || res.Limit != most {
		t.Fatalf("limit %g, the most a step put out within the objective %g\n%s", res.Limit, most, out)
	}
	if !strings.Contains(string(out), "imbench: the generator may use 0.3 of a core: the CPU quota of its cgroup /imbench-test-") {
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

// A users search against a reference target whose open files are capped
// below the users asked (started under ulimit -n) names the server's
// open-files limit; with the generator's capped instead, the generator's.
func TestLimitNamesTheOpenFilesLimit(t *testing.T) {
	testmachine.Shared(t) // open files run out whatever runs beside the search
	search := func(t *testing.T, tg target, wrap string) (limit.Result, string, string) {
		results := t.TempDir()
		args := []string{"limit", "-scenario", "openim/online-limit", "-start", "150", "-max", "1600", "-resolution", "0.3", "-step", "5s", "-q", "-results", results}
		cmd := exec.Command("sh", append([]string{"-c", wrap + `exec "$0" "$@"`, filepath.Join(toolsDir(t), "imbench")}, args...)...)
		cmd.Dir = "../.."
		cmd.Env = append(append(os.Environ(), tg.env()...), "IMBENCH_NO_OBSERVE=1", "IM_LOGIN_RETRIES=1")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 0) {
			t.Fatalf("%v\n%s", err, out)
		}
		return readResult(t, results, string(out)), string(out), results
	}
	t.Run("server", func(t *testing.T) {
		testmachine.Shared(t)
		tg, args := targetArgs(t)
		launchTargetUnder(t, tg, args, "ulimit -n 300; ")
		res, out, results := search(t, tg, "")
		if res.Saturated.Rule != limit.RuleServerOpenFiles || res.Saturated.Component != "imbench-target" || res.Saturated.Generator ||
			!strings.Contains(res.Saturated.Why, " of 300 ") || res.Limit < 100 || res.Limit >= 300 {
			t.Fatalf("limit %g, saturated %+v\n%s", res.Limit, res.Saturated, out)
		}
		// Drawn and said on its own objective, the logins' time; a step
		// whose users could not all get on did not hold them.
		if page := string(limit.HTML(res)); !strings.Contains(page, `data-measure="login"`) || !strings.Contains(out, "online, login p99 ") {
			t.Fatalf("the users search is not on the logins' time:\n%s", out)
		}
		k := res.Step(res.KneeStep)
		if k == nil {
			t.Fatalf("no knee\n%s", out)
		}
		if s, err := summary.Load(filepath.Join(results, k.RunID, "summary.json")); err != nil || s.Users.NeverOnline == 0 || s.Users.HeldSeconds > 1 {
			t.Fatalf("the knee's step held its users %.0f s though its objective was lost at its logins (%v)\n%s", s.Users.HeldSeconds, err, out)
		}
	})
	t.Run("generator", func(t *testing.T) {
		testmachine.Shared(t)
		tg := startTarget(t)
		res, out, _ := search(t, tg, "ulimit -n 300; ")
		if res.Saturated.Rule != limit.RuleGeneratorOpenFiles || res.Saturated.Component != "imbench" || !res.Saturated.Generator ||
			!strings.Contains(res.Saturated.Why, "ulimit -n 300") || res.Limit >= 300 {
			t.Fatalf("limit %g, saturated %+v\n%s", res.Limit, res.Saturated, out)
		}
	})
}

// With two busy loops holding both cores and the target starved beside
// them (at nice 19, it gets what they leave), no step tells the server's
// capacity: the search says it is undetermined on this machine, the
// evidence said, and reports no limit.
func TestLimitUndeterminedWhereTheTargetIsStarved(t *testing.T) {
	testmachine.Alone(t)
	for range 2 {
		// A shell spinning, in a process group of its own that the clean-up
		// kills whole (timeout bounds it should the test itself be killed).
		hog := exec.Command("timeout", "600", "sh", "-c", "while :; do :; done")
		hog.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := hog.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-hog.Process.Pid, syscall.SIGKILL); hog.Wait() })
	}
	tg, args := targetArgs(t, "-fault-capacity", "300")
	launchTargetUnder(t, tg, args, "renice -n 19 -p $$ >/dev/null; ")
	results := t.TempDir()
	r := imbench(t, append(tg.env(), "IMBENCH_NO_OBSERVE=1"), "limit", "-scenario", mustAbs(t, "testdata/limit-pairs.js"),
		"-protocol", "wukongim", "-start", "100", "-resolution", "0.1", "-step", "5s", "-slo", "e2e_p99<100,lost==0", "-retries", "1", "-q", "-results", results)
	res := readResult(t, results, r.stdout)
	if r.code != limit.ExitUndetermined || !res.Undetermined || res.Limit != 0 || !strings.Contains(r.stdout, "undetermined on this machine") {
		t.Fatalf("exit %d, limit %g, undetermined %v\n%s\n%s", r.code, res.Limit, res.Undetermined, r.stdout, r.stderr)
	}
	last := res.Steps[len(res.Steps)-1]
	if !strings.HasPrefix(last.Evidence, "starved: ") {
		t.Fatalf("the last step's evidence %q\n%s", last.Evidence, r.stdout)
	}
}
