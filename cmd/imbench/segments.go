package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

// runSegments runs a scenario as rc.segments k6 processes, each holding
// one execution segment of the users (k6 derives which VUs, and so which
// users, from --execution-segment; no user is in two segments):
//
//  1. one k6 process sets the target up (IM_SETUP_ONLY=1) and stops;
//  2. the segment processes start with --no-setup and keep time from a
//     common IM_START_AT, each tagged instance=segN so Prometheus holds
//     every process's series side by side and the recording rules add them;
//  3. their partial summaries merge into the run's summary.json.
//
// On Kubernetes the k6-operator plays step 2 (runbooks/kubernetes.md).
func runSegments(rc *runConfig) (int, error) {
	dir := filepath.Join(rc.resultsDir, rc.runID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	n := rc.segments
	fmt.Printf("imbench: run %s: %s on %s (%s), %d k6 processes\n", rc.runID, rc.scenario, rc.target.Name, rc.where(), n)
	vus := envValue(rc.env, "IM_VUS")
	if vus == "" {
		vus = strconv.Itoa(n) // one VU per process
	}
	if v, _ := strconv.Atoi(vus); v < n {
		return 0, badInput("VUS=%s: a run over %d segments needs at least %d VUs", vus, n, n)
	}
	env := append(os.Environ(), rc.env...)
	env = append(env, "IM_VUS="+vus)

	setup := exec.Command(rc.k6, k6Run("--no-thresholds", rc.script)...)
	setup.Env = append(append([]string(nil), env...), "IM_SETUP_ONLY=1", "IM_VUS=1")
	setup.Stdout, setup.Stderr = os.Stdout, os.Stderr
	if err := setup.Run(); err != nil {
		return 0, fmt.Errorf("setting the target up: %w", err)
	}

	obs := observe(rc)
	startAt := time.Now().Add(3 * time.Second)
	seq := make([]string, n+1)
	for i := range seq {
		seq[i] = fraction(i, n)
	}
	procs := make([]*exec.Cmd, n)
	for i := 0; i < n; i++ {
		// Thresholds are per process, where lost and received do not add up
		// (a sender's expected deliveries land in other processes): they are
		// checked on the merged summary instead.
		args := k6Run(append(rc.runTags(), "--tag", fmt.Sprintf("instance=seg%d", i), "--no-setup", "--no-thresholds",
			"--execution-segment", fraction(i, n)+":"+fraction(i+1, n),
			"--execution-segment-sequence", strings.Join(seq, ","))...)
		args = append(append(args, rc.k6Args...), rc.script)
		cmd := exec.Command(rc.k6, args...)
		cmd.Env = append(append([]string(nil), env...), fmt.Sprintf("IM_START_AT=%d", startAt.UnixMilli()))
		log, err := os.Create(filepath.Join(dir, fmt.Sprintf("k6-seg%d.log", i)))
		if err != nil {
			return 0, err
		}
		defer log.Close()
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			for _, p := range procs[:i] {
				p.Process.Kill()
			}
			return 0, err
		}
		procs[i] = cmd
	}
	for _, note := range obs.notes {
		fmt.Println("imbench:", note)
	}
	fmt.Printf("imbench: %d segment processes started; their output is in %s/k6-seg*.log\n", n, dir)
	stopLive := startLive(rc, startAt)
	defer stopLive() // the wait loop's early return
	code := 0
	for i, p := range procs {
		if err := p.Wait(); err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				code = max(code, ee.ExitCode())
				fmt.Fprintf(os.Stderr, "imbench: segment %d exited %d (see k6-seg%d.log)\n", i, ee.ExitCode(), i)
				continue
			}
			return 0, err
		}
	}
	stopLive()
	merged, err := mergeSegments(dir, n)
	if err != nil {
		return max(code, 1), err
	}
	if len(merged.Missing) > 0 {
		code = max(code, 1)
	}
	fmt.Print(merged.Table())
	for _, w := range merged.Warnings {
		fmt.Println("imbench: warning:", w)
	}
	if d := merged.Deliveries; (d.Lost != 0 || d.Corrupted != 0) && !slices.Contains(rc.k6Args, "--no-thresholds") {
		fmt.Fprintf(os.Stderr, "imbench: thresholds crossed over all segments: %d deliveries lost, %d corrupted\n", d.Lost, d.Corrupted)
		code = max(code, 99) // k6's exit code for crossed thresholds
	}
	return finishRun(rc, obs, dir, code)
}

// fraction is i/n as k6 writes segment boundaries: in lowest terms.
func fraction(i, n int) string { return big.NewRat(int64(i), int64(n)).RatString() }

// mergeSegments reads the partial summaries of the n segments in dir and
// writes summary.json. A segment without one (its k6 was killed) is named
// in Missing and a warning; the others' results are kept.
func mergeSegments(dir string, n int) (summary.Summary, error) {
	var parts []summary.Summary
	var missing []string
	for i := 0; i < n; i++ {
		seg := fraction(i, n) + ":" + fraction(i+1, n)
		f := filepath.Join(dir, summary.PartFile(seg))
		if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, seg)
			continue
		}
		s, err := summary.Load(f)
		if err != nil {
			return summary.Summary{}, err
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return summary.Summary{}, fmt.Errorf("none of the %d segments wrote a summary (see the k6-seg*.log files)", n)
	}
	merged, err := summary.MergeMissing(parts, missing)
	if err != nil {
		return merged, err
	}
	raw, err := json.MarshalIndent(merged, "", "  ")
	if err != nil {
		return merged, err
	}
	return merged, os.WriteFile(filepath.Join(dir, "summary.json"), append(raw, '\n'), 0o644)
}

func envValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}
