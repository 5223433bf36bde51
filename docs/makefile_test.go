package docs

import (
	"os/exec"
	"strings"
	"testing"
)

// make up installs the Debian packages the stack runs and no package only
// the tests use; make test installs those too.
func TestMakeUpInstallsOnlyWhatTheStackRuns(t *testing.T) {
	packages := func(goal string) string {
		t.Helper()
		cmd := exec.Command("make", "-n", goal)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", goal, err, out)
		}
		var named []string
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "dpkg -s") {
				named = append(named, line)
			}
		}
		return strings.Join(named, "\n")
	}
	up, test := packages("up"), packages("test")
	for _, p := range []string{"prometheus-node-exporter", "prometheus-process-exporter"} {
		if !strings.Contains(up, p) {
			t.Errorf("make up does not install %s:\n%s", p, up)
		}
	}
	for _, p := range []string{"chromium", "redis-server", "protobuf-compiler"} {
		if strings.Contains(up, p) {
			t.Errorf("make up installs %s, which only the tests use:\n%s", p, up)
		}
		if !strings.Contains(test, p) {
			t.Errorf("make test does not install %s:\n%s", p, test)
		}
	}
}
