package stack

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// inCheckout runs the test in a copy of this checkout's targets/ and
// prometheus/ (the stack's paths are relative to the project root).
func inCheckout(t *testing.T) {
	t.Helper()
	root := t.TempDir()
	for _, dir := range []string{"targets", "prometheus"} {
		if out, err := exec.Command("cp", "-r", filepath.Join("..", "..", dir), filepath.Join(root, dir)).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	t.Chdir(root)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// Two runs from one checkout at once, against two targets, each keep their
// scrape jobs while both run: an OpenIM run's fixed addresses and
// discovery, and a WuKongIM run's metrics address; a reference run started
// after them takes neither. One ending takes only its own away, and a
// registration whose process is gone is dropped.
func TestConcurrentRunsKeepTheirOwnScrapes(t *testing.T) {
	inCheckout(t)
	register := func(pid int, target string, env ...string) registration {
		t.Helper()
		for i := 0; i+1 < len(env); i += 2 {
			t.Setenv(env[i], env[i+1])
		}
		r, err := newRegistration(pid, target)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.write(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := renderScrapes(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	// The oldest registration, of a process gone: it would win the
	// discovery were it kept.
	register(gone.Process.Pid, "openim", "IM_API_URL", "http://127.0.0.1:29999", "IM_OPENIM_METRICS", "msg_gateway=127.0.0.1:29301")
	openim := register(os.Getpid(), "openim", "IM_API_URL", "http://127.0.0.1:20002", "IM_OPENIM_METRICS", "msg_gateway=127.0.0.1:20301")
	wukongim := register(os.Getppid(), "wukongim", "IM_API_URL", "http://127.0.0.1:25001")
	register(sleeper.Process.Pid, "reference", "IM_API_URL", "http://127.0.0.1:30002")

	check := func(wantWK bool) {
		t.Helper()
		cfg := readFile(t, prometheusConfig())
		if !strings.Contains(cfg, "http://127.0.0.1:20002/prometheus_discovery/msg_gateway") || strings.Contains(cfg, "30002") || strings.Contains(cfg, "29999") {
			t.Fatalf("discovery is not the OpenIM run's:\n%s", cfg)
		}
		if got := readFile(t, filepath.Join(RunDir, "prometheus", "openim-targets.json")); !strings.Contains(got, `"127.0.0.1:20301"`) ||
			!strings.Contains(got, `"job":"openim-msggateway"`) || strings.Contains(got, "29301") {
			t.Fatalf("openim targets %s", got)
		}
		wk := readFile(t, filepath.Join(RunDir, "prometheus", "wukongim-targets.json"))
		if strings.Contains(wk, "127.0.0.1:5300") != wantWK {
			t.Fatalf("wukongim targets %s (want them: %v)", wk, wantWK)
		}
	}
	check(true)
	wukongim.remove()
	if _, _, err := renderScrapes(); err != nil {
		t.Fatal(err)
	}
	check(false)
	if _, err := os.Stat(filepath.Join(registrationsDir(), filepathBase(gone.Process.Pid))); !os.IsNotExist(err) {
		t.Fatalf("the registration of a process gone is kept: %v", err)
	}
	openim.remove()
	if _, _, err := renderScrapes(); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(RunDir, "prometheus", "openim-targets.json")); got != "[]" {
		t.Fatalf("openim targets after its run: %s", got)
	}
}

func filepathBase(pid int) string { return registration{PID: pid}.file()[len(registrationsDir())+1:] }
