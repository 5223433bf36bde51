package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startImbench starts the built imbench from the project root.
func startImbench(t *testing.T, env []string, args ...string) *backgroundRun {
	t.Helper()
	return startBackground(t, filepath.Join(toolsDir(t), "imbench"), "../..", env, args...)
}

// chaosSummary is what these tests read of summary.json.
type chaosSummary struct {
	runSummary
	Missing []string `json:"missing_parts"`
	Outages *struct {
		Windows []struct {
			Start        time.Time `json:"start"`
			End          time.Time `json:"end"`
			Dropped      int64     `json:"dropped"`
			Reconnects   int64     `json:"reconnects"`
			GaveUp       int64     `json:"gave_up"`
			BackOnlineMs float64   `json:"back_online_ms"`
			PerSecond    []int64   `json:"reconnects_per_second"`
		} `json:"windows"`
	} `json:"outages"`
}

func readSummary(t *testing.T, results string) chaosSummary {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(results, "latest", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s chaosSummary
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// accepted counts the messages a target (or its core) acknowledged.
// accepted counts the users' messages the target took, not its own
// notifications (which setup causes).
func accepted(t *testing.T, tg target) int64 {
	return tg.counter(t, "single_chat_msg_process_success_total") + tg.counter(t, "group_chat_msg_process_success_total") -
		tg.counter(t, "imbench_target_openim_notifications_total")
}

func startGateway(t *testing.T, args []string, metrics string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(filepath.Join(toolsDir(t), "imbench-target"), args...)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("gateway %s log:\n%s", metrics, log.String())
		}
	})
	for range 100 {
		if r, err := httpGet("http://" + metrics + "/metrics"); err == nil && r {
			return cmd
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("gateway did not start: %s", log.String())
	return nil
}

// findSegment is the process of a run writing to results that runs
// segment seg (i/n), or nil.
func findSegment(results, seg string) *os.Process {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmdline, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(cmdline), "\x00-segment\x00"+seg+"\x00") {
			continue
		}
		environ, _ := os.ReadFile(strings.TrimSuffix(p, "cmdline") + "environ")
		if !strings.Contains(string(environ), "IM_RESULTS_DIR="+results+"\x00") {
			continue
		}
		var pid int
		fmt.Sscanf(p, "/proc/%d/cmdline", &pid)
		if proc, err := os.FindProcess(pid); err == nil {
			return proc
		}
	}
	return nil
}

func httpGet(u string) (bool, error) {
	resp, err := http.Get(u)
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK, nil
}
