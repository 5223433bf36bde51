package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

// The /proc/sys entries the kubelet would set: the host's must not change.
var kernelKeys = []string{"vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops",
	"kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes"}

func kernelValues(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, k := range kernelKeys {
		raw, err := os.ReadFile("/proc/sys/" + k)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = strings.TrimSpace(string(raw))
	}
	return out
}

type cluster struct{ kubeconfig string }

// startCluster brings the test cluster up (or takes the one that is up)
// and loads the image of this build; the one it started is stopped at the
// end, leaving nothing and the host's kernel settings as they were.
func startCluster(t *testing.T, bin string) cluster {
	t.Helper()
	tool := filepath.Join(toolsDir(t), "imbench-cluster")
	run := func(args ...string) (string, error) {
		cmd := exec.Command(tool, append(args[:1:1], append([]string{"-bin", bin}, args[1:]...)...)...)
		cmd.Dir = "../.."
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("status"); err != nil {
		before := kernelValues(t)
		started := time.Now()
		if out, err := run("up"); err != nil {
			run("down")
			t.Fatalf("cluster up: %v\n%s", err, out)
		}
		t.Logf("cluster up in %s", time.Since(started).Round(time.Second))
		t.Cleanup(func() {
			out, err := run("down")
			if err != nil {
				t.Errorf("cluster down: %v\n%s", err, out)
			}
			if after := kernelValues(t); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("the host's kernel settings changed: %v, were %v", after, before)
			}
		})
	} else {
		t.Logf("the cluster that is up:\n%s", out)
	}
	if out, err := run("image", "-imbench", filepath.Join(toolsDir(t), "imbench"), "-tag", "imbench.local/imbench:test"); err != nil {
		t.Fatalf("image: %v\n%s", err, out)
	}
	kc, _ := filepath.Abs("../../.run/cluster/kubeconfig")
	return cluster{kubeconfig: kc}
}

func (c cluster) flags(extra ...string) []string {
	return append([]string{"-on", "kubernetes", "-kubeconfig", c.kubeconfig, "-image", "imbench.local/imbench:test",
		"-host-network", "-start-in", "10s"}, extra...)
}

// left is what the run left in the cluster's namespace.
func (c cluster) left(t *testing.T, runID string) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(os.Getenv("IMBENCH_CLUSTER"), "kubectl"), "--kubeconfig", c.kubeconfig,
		"get", "jobs,pods,secrets", "-l", "imbench/run-id="+runID, "-o", "name").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl get: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// clusterRun runs a scenario and returns its exit, output and summary.
func clusterRun(t *testing.T, env []string, args ...string) (result, summary.Summary, []byte) {
	t.Helper()
	results := t.TempDir()
	r := imbench(t, env, append([]string{"run", "-results", results, "-q"}, args...)...)
	raw, err := os.ReadFile(filepath.Join(results, "latest", "summary.json"))
	if err != nil {
		return r, summary.Summary{}, nil
	}
	s, err := summary.Load(filepath.Join(results, "latest", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	return r, s, raw
}
