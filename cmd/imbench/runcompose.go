package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/stack"
	"github.com/imbench/imbench/internal/stack/observe"
	"github.com/imbench/imbench/report/live"
)

// runCompose runs the scenario in the compose stack's runner container, on
// the stack's network.
func runCompose(rc *runConfig) (int, error) {
	if filepath.IsAbs(rc.resultsDir) || strings.HasPrefix(filepath.Clean(rc.resultsDir), "..") {
		return 0, badinput.Errorf("under compose the runner container sees only ./results: -results %s is not inside it", rc.resultsDir)
	}
	obs := observe.Compose()
	// As the invoking user, so results/ stays writable and owned by them.
	args := []string{"compose", "-f", stack.ComposeFile, "--profile", "runner", "run", "--rm",
		"--user", fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())}
	for _, kv := range rc.env {
		if name, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(name, "IM_") || !strings.HasSuffix(name, "_URL") {
			args = append(args, "-e", name) // value passed through the environment
		}
	}
	args = append(args, "runner", "run", "-scenario", rc.scenario, "-target", rc.target.Name, "-protocol", rc.protocol,
		"-run-id", rc.runID, "-results", rc.resultsDir, "-prometheus-rw-url", obs.PromWrite, "-log-push-url", obs.LogPush)
	if rc.noThresholds {
		args = append(args, "-no-thresholds")
	}
	cmd := exec.Command("docker", args...)
	cmd.Env = append(stack.ComposeEnv(), rc.env...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	for _, n := range obs.Notes {
		fmt.Println("imbench:", n)
	}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	go func() {
		for s := range sig {
			cmd.Process.Signal(s)
		}
	}()
	stopLive := live.Grafana(rc.runID, started)
	err := cmd.Wait()
	stopLive()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return 0, err
	}
	dir := filepath.Join(rc.resultsDir, rc.runID)
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err == nil {
		return finishRun(rc, obs, dir, code)
	}
	return code, nil
}
