package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/stack"
)

// holdBaseline holds users the way the seed's own load program does
// (`imbench bench-baseline-hold`, baseline_client.go: OpenIM's
// msgtest, a gorilla/websocket connection and two goroutines per user) in a
// process of its own, against a target of its own, and measures it as
// holdOurs measures the generator: same users, same hold, one tool at a
// time.
func (b *bench) holdBaseline(users int) (*holdResult, error) {
	fmt.Printf("imbench bench: baseline: msgtest's way (gorilla/websocket, a reader and a heartbeat goroutine per user) holding %d users for %s\n", users, b.hold)
	bt, err := startTargets(0)
	if err != nil {
		return nil, err
	}
	defer bt.stop()
	report, err := os.CreateTemp("", "imbench-baseline-*.json")
	if err != nil {
		return nil, err
	}
	report.Close()
	defer os.Remove(report.Name())
	res := &holdResult{Tool: "baseline: msgtest's way (gorilla/websocket, 2 goroutines per user)", UsersPlanned: users}
	cmd := exec.Command(filepath.Join(stack.ToolsBin, "imbench"), "bench-baseline-hold",
		"-api", "http://"+bt.api, "-ws", strings.Join(bt.ws, ","), "-users", strconv.Itoa(users),
		"-hold", b.hold.String(), "-out", report.Name())
	cmd.Env = append(os.Environ(), "IM_SECRET="+bt.secret)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	endsWithBench(cmd)
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	err = measureHold(bt, users, func() []int { return []int{cmd.Process.Pid} }, res, began, done)
	if err != nil {
		cmd.Process.Kill()
	}
	if werr := <-done; err == nil && werr != nil {
		err = fmt.Errorf("bench-baseline-hold: %w", werr)
	}
	res.HeldSeconds = b.hold.Seconds()
	res.HeartbeatTimeouts = int64(metric(bt.metrics, "imbench_target_heartbeat_timeouts_total"))
	var rep baselineReport
	if raw, rerr := os.ReadFile(report.Name()); rerr == nil && json.Unmarshal(raw, &rep) == nil {
		res.ConnectErrors, res.Disconnects = rep.ConnectErrors, rep.Drops
	}
	return res, err
}

// baselineRatio is the baseline's cost per user over the generator's, where
// both were measured.
func baselineRatio(ours, base *holdResult) map[string]float64 {
	if ours == nil || base == nil || ours.RSSPerUserBytes <= 0 {
		return nil
	}
	r := map[string]float64{"rss_per_user": round2(base.RSSPerUserBytes / ours.RSSPerUserBytes)}
	if ours.CPUPer1000UsersPerSec > 0 {
		r["cpu_per_user"] = round2(base.CPUPer1000UsersPerSec / ours.CPUPer1000UsersPerSec)
	}
	return r
}
