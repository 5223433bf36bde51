package main

// The distributed run on a real single-node Kubernetes that the test starts
// (make test-cluster; kube/node): the segments as an Indexed Job's pods,
// beside the same run as one process and as segment processes here.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

func TestCluster(t *testing.T) {
	bin := os.Getenv("IMBENCH_CLUSTER")
	if bin == "" {
		t.Skip("make test-cluster runs it (IMBENCH_CLUSTER: the cluster's programs)")
	}
	c := startCluster(t, bin)
	tg := startTarget(t)

	// Each protocol's scenario as 4 pods: every user held once, and
	// expected and received equal to the same run as one process and as 4
	// processes here.
	for _, sc := range []struct {
		name string
		env  []string
	}{
		{"openim/test1", []string{"IM_SCALE=0.25", "IM_RATE=100"}},
		{"wukongim/mixed", []string{"IM_SCALE=0.01", "IM_DURATION=4s"}},
		{"wildfire/group-limit", []string{"IM_SCALE=0.01", "IM_DURATION=4s"}}, // open pacing: the same plan in any split
	} {
		t.Run(sc.name, func(t *testing.T) {
			env := append(append(tg.env(), "IM_LOGIN_WINDOW=4s", "IM_SEND_MARGIN=4s", "IM_DRAIN_QUIET=1s"), sc.env...)
			var got [3]summary.Summary
			for i, extra := range [][]string{nil, {"-segments", "4"}, c.flags("-segments", "4")} {
				r, s, raw := clusterRun(t, env, append([]string{"-scenario", sc.name}, extra...)...)
				if r.code != 0 || raw == nil {
					t.Fatalf("%v: exit %d\n%s\n%s", extra, r.code, r.stdout, r.stderr)
				}
				if err := summary.Validate(raw); err != nil {
					t.Fatalf("%v: summary.json: %v", extra, err)
				}
				got[i] = s
			}
			one, here, pods := got[0].Deliveries, got[1].Deliveries, got[2].Deliveries
			if one.Expected == 0 || pods.Expected != one.Expected || pods.Received != one.Received || here.Expected != one.Expected ||
				here.Received != one.Received || pods.Lost != 0 || got[2].Messages.Sent != got[0].Messages.Sent {
				t.Fatalf("expected/received: one process %d/%d, 4 processes %d/%d, 4 pods %d/%d (lost %d)",
					one.Expected, one.Received, here.Expected, here.Received, pods.Expected, pods.Received, pods.Lost)
			}
			if n := len(got[2].Generator.Processes); n != 4 || len(got[2].Parts) != 4 {
				t.Fatalf("4 pods wrote %d parts and %d generator rows", len(got[2].Parts), n)
			}
			if left := c.left(t, got[2].RunID); left != "" {
				t.Fatalf("left in the namespace: %s", left)
			}
			t.Logf("%s: %d of %d deliveries as one process, 4 processes and 4 pods", sc.name, pods.Received, pods.Expected)
		})
	}

	// A segment's pod deleted while it runs: the run fails naming that
	// segment, and nothing of it stays in the namespace.
	t.Run("a pod deleted", func(t *testing.T) {
		runID := fmt.Sprintf("podgone%d", time.Now().Unix())
		env := append(tg.env(), "IM_SCALE=0.25", "IM_RATE=20", "IM_LOGIN_WINDOW=4s")
		results := t.TempDir()
		cmd := exec.Command(filepath.Join(toolsDir(t), "imbench"), append([]string{"run", "-scenario", "openim/test1", "-run-id", runID,
			"-results", results, "-q"}, c.flags("-segments", "3")...)...)
		cmd.Dir, cmd.Env = "../..", append(os.Environ(), env...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		kubectl := func(args ...string) string {
			b, _ := exec.Command(filepath.Join(os.Getenv("IMBENCH_CLUSTER"), "kubectl"), append([]string{"--kubeconfig", c.kubeconfig}, args...)...).CombinedOutput()
			return strings.TrimSpace(string(b))
		}
		sel := "imbench/run-id=" + runID + ",app.kubernetes.io/component=segment,batch.kubernetes.io/job-completion-index=1"
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for ctx.Err() == nil && kubectl("get", "pods", "-l", sel, "-o", "jsonpath={.items[0].status.phase}") != "Running" {
			time.Sleep(time.Second)
		}
		time.Sleep(12 * time.Second) // into its sending
		t.Logf("deleting: %s", kubectl("delete", "pods", "-l", sel, "--wait=false"))
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(3 * time.Minute):
			cmd.Process.Kill()
			t.Fatalf("the run did not end:\n%s", out.String())
		}
		if cmd.ProcessState.ExitCode() == 0 || !strings.Contains(out.String(), "segment 1/3") {
			t.Fatalf("exit %d, and the segment whose pod went is not named:\n%s", cmd.ProcessState.ExitCode(), out.String())
		}
		// The other segments ran to their end and count; the lost one's users
		// are missing, never counted twice.
		s, err := summary.Load(filepath.Join(results, runID, "summary.json"))
		if err != nil || fmt.Sprint(s.Missing) != "[1/3:2/3]" || len(s.Parts) != 2 {
			t.Fatalf("merged: parts %v, missing %v (%v)\n%s", s.Parts, s.Missing, err, out.String())
		}
		if left := c.left(t, runID); left != "" {
			t.Fatalf("left in the namespace: %s\n%s", left, out.String())
		}
	})

	// What the cluster cannot run is named in one line and removed.
	t.Run("cannot run", func(t *testing.T) {
		env := append(tg.env(), "IM_SCALE=0.05")
		for _, c := range []struct {
			flags []string
			want  string
		}{
			{c.flags("-segments", "2", "-pod-cpu", "64"), "cannot be scheduled: 0/1 nodes are available: 1 Insufficient cpu"},
			{append(c.flags("-segments", "2"), "-image", "imbench.local/absent:1"), "setup pod"},
		} {
			r, _, _ := clusterRun(t, env, append([]string{"-scenario", "openim/test1", "-run-id", fmt.Sprintf("cannot%d", time.Now().UnixNano())}, c.flags...)...)
			last := strings.TrimSpace(r.stderr)
			if r.code == 0 || !strings.Contains(last, "the cluster cannot run the pods") || !strings.Contains(last, c.want) || strings.Count(last, "\n") > 0 {
				t.Fatalf("exit %d, not one line naming it (%q):\n%s\n%s", r.code, c.want, r.stdout, r.stderr)
			}
		}
	})

	// A target the pods cannot reach: the setup pod's own check refuses
	// it, before any user is registered (exit 2), in its words.
	t.Run("target unreachable", func(t *testing.T) {
		env := append(tg.env(), "IM_SCALE=0.05", "IM_API_URL=http://127.0.0.1:1")
		r, _, _ := clusterRun(t, env, append([]string{"-scenario", "openim/test1"}, c.flags("-segments", "2")...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "refused before load: the setup pod said:") || !strings.Contains(r.stderr, "127.0.0.1:1") {
			t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	})

	// Ctrl-C while the pods run: they are stopped and removed.
	t.Run("interrupted", func(t *testing.T) {
		runID := fmt.Sprintf("sigint%d", time.Now().Unix())
		cmd := exec.Command(filepath.Join(toolsDir(t), "imbench"), append([]string{"run", "-scenario", "openim/test1", "-run-id", runID,
			"-results", t.TempDir(), "-q"}, c.flags("-segments", "2")...)...)
		cmd.Dir, cmd.Env = "../..", append(os.Environ(), append(tg.env(), "IM_SCALE=0.25", "IM_RATE=20")...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for end := time.Now().Add(2 * time.Minute); time.Now().Before(end) && !regexp.MustCompile(`segment \d \(pod [^)]*\): Running`).MatchString(out.String()); {
			time.Sleep(500 * time.Millisecond)
		}
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			t.Fatalf("the run did not end:\n%s", out.String())
		}
		if cmd.ProcessState.ExitCode() != 105 || !strings.Contains(out.String(), "every object of run "+runID+" removed") {
			t.Fatalf("exit %d:\n%s", cmd.ProcessState.ExitCode(), out.String())
		}
		if left := c.left(t, runID); left != "" {
			t.Fatalf("left in the namespace: %s", left)
		}
	})

	// Pods under a CPU limit of half a core, asked more than that lets
	// them send: the run names the quota as what held the generator back.
	t.Run("a CPU quota", func(t *testing.T) {
		env := append(tg.env(), "IM_SCALE=1", "IM_RATE=4000", "IM_LOGIN_WINDOW=4s", "IM_SEND_MARGIN=4s")
		r, s, _ := clusterRun(t, env, append([]string{"-scenario", "openim/test1"}, c.flags("-segments", "2", "-pod-cpu-limit", "500m")...)...)
		q := summary.QuotaText(s.Generator)
		if q == "" || !strings.Contains(r.stdout+r.stderr, "the generator's CPU quota held it back") {
			t.Fatalf("exit %d, processes %+v; no word of the quota:\n%s\n%s", r.code, s.Generator.Processes, r.stdout, r.stderr)
		}
		for _, p := range s.Generator.Processes {
			if p.QuotaCores != 0.5 || !strings.Contains(p.Bound, "CPU quota") || p.Throttled < 0.1 {
				t.Fatalf("a pod's generator row: %+v", p)
			}
		}
		t.Log(q)
	})
}
