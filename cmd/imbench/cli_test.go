package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

type result struct {
	code           int
	stdout, stderr string
}

// imbench runs the CLI from the project root with the given environment.
func imbench(t *testing.T, env []string, args ...string) result {
	t.Helper()
	r, err := runCLI(filepath.Join(toolsDir(t), "imbench"), "../..", env, args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runCLI runs bin in dir; err is a failure to run it, not an exit code.
func runCLI(bin, dir string, env []string, args ...string) (result, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code, err = ee.ExitCode(), nil
	}
	return r, err
}

// runSummary is the part of summary.json the tests read.
type runSummary struct {
	RunID string `json:"run_id"`
	Users struct {
		Registered  int   `json:"registered"`
		OnlinePeak  int64 `json:"online_peak"`
		LateLogins  int64 `json:"late_logins"`
		Disconnects int64 `json:"disconnects"`
		Reconnects  int64 `json:"reconnects"`
	} `json:"users"`
	Messages struct {
		Sent, Acked   int64
		SendFailed    int64 `json:"send_failed"`
		Unanswered    int64 `json:"unanswered"`
		PeakPerSecond int64 `json:"peak_per_second"`
	} `json:"messages"`
	Deliveries struct {
		Expected, Received, Pushed, Duplicates, Lost, Corrupted int64
		Unexpected                                              int64 // of sends never acknowledged
		OfUnanswered                                            int64 `json:"of_unanswered"`
		ByPull                                                  int64 `json:"by_pull"`
		ByGapPull                                               int64 `json:"by_gap_pull"`
		OutOfOrder                                              int64 `json:"out_of_order"`
		Rooms                                                   *struct {
			Expected, Received, Missed int64
		} `json:"rooms"`
	} `json:"deliveries"`
	Integrity float64 `json:"integrity"`
	Latency   struct {
		E2E struct {
			Count                   int64
			Avg, P50, P95, P99, Max float64
		} `json:"e2e"`
		Ack struct {
			Count                   int64
			Avg, P50, P95, P99, Max float64
		} `json:"ack"`
	} `json:"latency_ms"`
}

// runScenario runs openim/test1 against tg and returns its summary.
func runScenario(t *testing.T, tg target, scale, rate string, flags ...string) runSummary {
	t.Helper()
	results := t.TempDir()
	args := append([]string{"run", "-scenario", "openim/test1", "-scale", scale, "-rate", rate, "-results", results}, flags...)
	r := imbench(t, tg.env(), args...)
	if r.code != 0 {
		t.Fatalf("imbench run exited %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	raw, err := os.ReadFile(filepath.Join(results, "latest", "summary.json"))
	if err != nil {
		t.Fatalf("no results/latest/summary.json: %v\n%s", err, r.stdout)
	}
	var s runSummary
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}
