package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/kube"
	"github.com/imbench/imbench/load/runner"
	"github.com/imbench/imbench/load/segment"
	"github.com/imbench/imbench/report/live"
)

// runKube runs a split run as pods of a Kubernetes cluster (kube): the
// setup Job, the segments' Indexed Job, their parts merged here as a split
// run's on this machine are. Every object it created is removed at its
// end, Ctrl-C and failures included, before the run's users leave the
// target.
func runKube(rc *runConfig) (code int, err error) {
	o := rc.kube
	dir := filepath.Join(rc.resultsDir, rc.runID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	k := kube.Kubectl{Bin: kubectl(), Kubeconfig: o.kubeconfig, Namespace: o.namespace}
	ns, err := k.CurrentNamespace(ctx)
	if err != nil {
		return 0, badinput.Errorf("-on kubernetes: %v", err)
	}
	k.Namespace = ns
	obs := rc.observation()
	defer obs.Done()
	env, secrets := podEnv(rc)
	spec := kube.Spec{RunID: rc.runID, Namespace: ns, Image: o.image, Segments: rc.segments,
		Run: []string{"-scenario", rc.scenario, "-target", rc.target.Name, "-protocol", rc.protocol, "-run-id", rc.runID},
		Env: env, SecretEnv: secrets, HostNetwork: o.hostNetwork, CPURequest: o.cpu, CPULimit: o.cpuLimit, Memory: o.memory,
		PromWrite: rc.promWrite, LogPush: rc.logPush}
	if o.hostNetwork && spec.PromWrite == "" {
		spec.PromWrite, spec.LogPush = obs.PromWrite, obs.LogPush // the stack of this machine, the pods' too
	}
	r := &kube.Run{Spec: spec, Kubectl: k, Dir: dir, Secret: rc.secret, Out: os.Stdout}
	fmt.Printf("imbench: run %s: %s on %s (%s), %d pods in namespace %s\n", rc.runID, rc.scenario, rc.target.Name, rc.where(), rc.segments, ns)
	cleaned := false
	cleanup := func() {
		if cleaned {
			return
		}
		cleaned = true
		if err := r.Cleanup(); err != nil {
			fmt.Fprintln(os.Stderr, "imbench: kubernetes: clean-up:", err)
			code = max(code, 1)
			return
		}
		fmt.Printf("imbench: kubernetes: every object of run %s removed from namespace %s\n", rc.runID, ns)
	}
	defer cleanup()
	runEnv := rc.runnerConfig(obs).Env
	if err := r.Setup(ctx); err != nil {
		cleanup()
		if fileExists(filepath.Join(dir, runner.SetupFile)) { // it registered some before it failed
			removeCreated(rc, runEnv, dir, ctx.Err() != nil)
		}
		switch {
		case ctx.Err() != nil:
			fmt.Fprintln(os.Stderr, "imbench: interrupted during the setup: its pod is stopped and removed")
			return runner.ExitInterrupted, nil
		case errors.Is(err, kube.ErrRefused):
			return 0, badinput.Errorf("%v", err)
		}
		return 1, fmt.Errorf("setting the target up: %w", err)
	}
	r.StartAtMs = time.Now().Add(o.lead).UnixMilli()
	stopLive := live.Start(rc.runID, rc.target.Name, rc.about(), time.UnixMilli(r.StartAtMs), targetComponents(rc.target))
	ended, runErr := r.RunSegments(ctx)
	stopLive()
	cleanup() // the pods are gone before the run's users leave the target
	switch {
	case errors.Is(runErr, kube.ErrCannotRun):
		removeCreated(rc, runEnv, dir, false)
		return max(code, 1), runErr
	case ctx.Err() != nil:
		removeCreated(rc, runEnv, dir, true)
		fmt.Fprintln(os.Stderr, "imbench: interrupted: the run's pods are stopped and removed")
		return runner.ExitInterrupted, nil
	}
	if runErr != nil {
		fmt.Fprintln(os.Stderr, "imbench: kubernetes:", runErr)
		code = 1
	}
	for _, s := range ended {
		if s.Ended != "" {
			fmt.Fprintf(os.Stderr, "imbench: segment %d/%d (%s): %s; its users' deliveries are not counted\n",
				s.Index, rc.segments, summary.PartFile(segment.Segment{Index: s.Index, Count: rc.segments}.Interval()), s.Ended)
			code = 1
		}
	}
	c, err := runner.MergeAndFinish(rc.script, runEnv, rc.runID, dir, rc.segments, rc.noThresholds, os.Stdout, os.Stderr)
	removeCreated(rc, runEnv, dir, false)
	if err != nil {
		return max(code, 1), err
	}
	if code == 0 {
		code = c // a segment that ended early fails the run (exit 1) whatever its thresholds say
	}
	return finishRun(rc, obs, dir, code)
}

// podEnv is what the pods need of this run's environment: the IM_* knobs
// and endpoints, the credentials among them apart (they go into the run's
// Secret), less what each pod works out for itself or gets otherwise and
// what names this machine (its source addresses, its live view).
func podEnv(rc *runConfig) (env, secrets map[string]string) {
	env, secrets = map[string]string{}, map[string]string{}
	add := func(kv string) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "IM_SECRET", "IM_RESULTS_DIR", "IM_RUN_ID", "IM_TARGET", "IM_PROTOCOL", "IM_ENDPOINTS", "IM_IMBENCH_VERSION",
			"IM_PROGRESS", "IM_PROMETHEUS_RW_URL", "IM_LOG_PUSH_URL", "IM_SOURCE_ADDRS", "IM_LIVE_ADDR":
			return
		case "IM_PROMETHEUS_RW_USERNAME", "IM_PROMETHEUS_RW_PASSWORD", "IM_PROMETHEUS_RW_BEARER_TOKEN", "IM_PROMETHEUS_RW_HEADERS":
			secrets[k] = v
			return
		}
		if strings.HasPrefix(k, "IM_") {
			env[k] = v
		}
	}
	for _, kv := range os.Environ() {
		add(kv)
	}
	for _, kv := range rc.env {
		add(kv)
	}
	env["IM_PROGRESS"] = "10s" // the pods' lines, which the run shows as they come
	if slices.Contains(rc.env, "IM_PROGRESS=off") {
		env["IM_PROGRESS"] = "off"
	}
	return env, secrets
}

// kubectl is the test cluster's kubectl where make cluster-tools built it,
// else the one on PATH.
func kubectl() string {
	if d := os.Getenv("IMBENCH_TOOLS"); d != "" {
		if f := filepath.Join(d, "..", "kubernetes", "bin", "kubectl"); fileExists(f) {
			return f
		}
	}
	if f := filepath.Join(".tools", "kubernetes", "bin", "kubectl"); fileExists(f) {
		return f
	}
	return "kubectl"
}

func fileExists(f string) bool {
	_, err := os.Stat(f)
	return err == nil
}

// printResults prints, as lines a pod's log keeps, the files of the run
// that its caller reads back: the setup record, the segment's part.
func printResults(rc *runConfig) error {
	dir := filepath.Join(rc.resultsDir, rc.runID)
	return kube.PrintFiles(os.Stdout, dir, []string{"setup.json", summary.PartFile(rc.segment.Interval())})
}
