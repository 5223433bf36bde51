package cpulimit_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

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

// A process pinned to one CPU has GOMAXPROCS 1 from it: the bound named
// is the affinity, not GOMAXPROCS.
func TestTheAffinityIsNamedWhereGOMAXPROCSFollowsIt(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var was, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &was); err != nil {
		t.Skip(err)
	}
	one.Set(0)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		t.Skip("cannot pin here:", err)
	}
	defer unix.SchedSetaffinity(0, &was)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	l := cpulimit.Own()
	if l.Quota > 0 && l.Quota < 1 {
		t.Skip("a CPU quota below one core binds first")
	}
	if l.Cores != 1 || !strings.Contains(l.Why, "affinity") {
		t.Fatalf("pinned to one CPU: %v cores, %q", l.Cores, l.Why)
	}
}
