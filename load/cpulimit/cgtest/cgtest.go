// Package cgtest makes cgroups with a CPU quota for tests.
package cgtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/imbench/imbench/load/cpulimit"
)

// QuotaCgroup makes a cgroup v1 cpu folder with a quota of cores, removed
// at the test's end (its processes must have ended), for tests that run a
// process under a CPU quota; it skips the test where no writable cpu
// controller is mounted (not root, or cgroup v2 only).
func QuotaCgroup(t testing.TB, cores float64) string {
	t.Helper()
	root := cpulimit.CPUMount()
	if root == "" {
		t.Skip("no cgroup v1 cpu controller mounted")
	}
	dir := filepath.Join(root, fmt.Sprintf("imbench-test-%d", time.Now().UnixNano()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a cgroup (%v)", err)
	}
	t.Cleanup(func() {
		for range 50 {
			if os.Remove(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	const period = 100000
	if err := os.WriteFile(filepath.Join(dir, "cpu.cfs_period_us"), []byte(fmt.Sprint(period)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cpu.cfs_quota_us"), []byte(fmt.Sprint(int(cores*period))), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
