package cpulimit_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/load/cpulimit"
	"github.com/imbench/imbench/load/cpulimit/cgtest"
)

// This process's limits: at most GOMAXPROCS, and the least of the bounds.
func TestOwnIsTheLeastBound(t *testing.T) {
	l := cpulimit.Own()
	if l.Cores <= 0 || l.Cores > float64(l.GOMAXPROCS) || l.Why == "" {
		t.Fatalf("%+v", l)
	}
	if l.Affinity > 0 && l.Cores > float64(l.Affinity) {
		t.Fatalf("above its affinity: %+v", l)
	}
}

// A child in a cgroup with a quota of a tenth of a core reads that quota,
// and its busy loop shows throttled periods.
func TestAQuotaIsReadAndItsThrottlingCounted(t *testing.T) {
	dir := cgtest.QuotaCgroup(t, 0.1)
	if os.Getenv("CPULIMIT_CHILD") == "1" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestChildReportsItsLimits$", "-test.v")
	cmd.Env = append(os.Environ(), "CPULIMIT_CHILD=1", "CPULIMIT_CGROUP="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "quota 0.10 cores") || !strings.Contains(string(out), "throttled yes") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// The child: it joins the cgroup, spins for a while, and says what it read.
func TestChildReportsItsLimits(t *testing.T) {
	dir := os.Getenv("CPULIMIT_CGROUP")
	if os.Getenv("CPULIMIT_CHILD") != "1" || dir == "" {
		t.Skip("run by TestAQuotaIsReadAndItsThrottlingCounted")
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(fmt.Sprint(os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	t0, _ := cpulimit.OwnThrottle()
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
	}
	t1, ok := cpulimit.OwnThrottle()
	l := cpulimit.Own()
	fmt.Printf("quota %.2f cores (%s), throttled %s\n", l.Quota, l.Why, map[bool]string{true: "yes", false: "no"}[ok && t1.Share(t0) > 0.3])
}
