package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

type holdResult struct {
	Tool                  string  `json:"tool"`
	UsersPlanned          int     `json:"users_planned"`
	UsersHeld             int64   `json:"users_held"` // connections the target held at once
	RSSBytes              int64   `json:"rss_bytes"`
	RSSPerUserBytes       float64 `json:"rss_per_user_bytes"`
	CPUPer1000UsersPerSec float64 `json:"cpu_seconds_per_1000_users_per_second"`
	HeartbeatTimeouts     int64   `json:"heartbeat_timeouts"`
	SecondsToOnline       float64 `json:"seconds_to_online"`
	HeldSeconds           float64 `json:"held_seconds"`
	OpenFiles             int     `json:"open_files"`
}

// measureHold samples the generator processes while users are held: once
// the target holds want connections, RSS and CPU over the next 30 s.
func measureHold(bt *benchTarget, want int, pids func() []int, res *holdResult, began time.Time, done chan error) error {
	online := func() bool { return int(metric(bt.metrics, "imbench_target_connections")) >= want }
	if !waitFor(15*time.Minute, func() bool {
		select {
		case err := <-done:
			done <- err
			return true
		default:
		}
		return online()
	}) || !online() {
		res.UsersHeld = int64(metric(bt.metrics, "imbench_target_connections"))
		return fmt.Errorf("the target holds %d of %d users", res.UsersHeld, want)
	}
	res.SecondsToOnline = round2(time.Since(began).Seconds())
	time.Sleep(5 * time.Second) // settle: logins' garbage collected, pings under way
	p := pids()
	s1, err := sampleAll(p)
	if err != nil {
		return err
	}
	time.Sleep(30 * time.Second)
	s2, err := sampleAll(p)
	if err != nil {
		return err
	}
	res.UsersHeld = int64(metric(bt.metrics, "imbench_target_connections"))
	res.RSSBytes = max(s1.rss, s2.rss)
	res.RSSPerUserBytes = round2(float64(res.RSSBytes) / float64(res.UsersHeld))
	res.CPUPer1000UsersPerSec = round6((s2.cpu - s1.cpu) / s2.at.Sub(s1.at).Seconds() / (float64(res.UsersHeld) / 1000))
	res.OpenFiles = s2.fds
	return nil
}

func (b *bench) holdOurs(users int, protocol string) (*holdResult, error) {
	fmt.Printf("imbench bench: density: one imbench k6 process holding %d users for %s over %s\n", users, b.hold, protocol)
	bt, err := startTargets(0)
	if err != nil {
		return nil, err
	}
	defer bt.stop()
	res := &holdResult{Tool: "imbench k6 (k6/x/im), " + protocol, UsersPlanned: users}
	began := time.Now()
	runID, done, err := b.runScenario(bt, "openim/hold", protocol, 1, map[string]string{"IM_USERS": strconv.Itoa(users),
		"IM_HOLD": b.hold.String(), "IM_SCALE": "1"})
	if err != nil {
		return nil, err
	}
	err = measureHold(bt, users, func() []int { return pidsWith("k6", "run_id="+runID) }, res, began, done)
	if rerr := <-done; err == nil {
		err = rerr
	}
	res.HeldSeconds = b.hold.Seconds()
	res.HeartbeatTimeouts = int64(metric(bt.metrics, "imbench_target_heartbeat_timeouts_total"))
	return res, err
}

// holdStock has the target's protocol set users up (stock k6 has no
// k6/x/im to do it), then runs k6/bench/stock_hold.js with stock k6.
func (b *bench) holdStock(users int) (*holdResult, error) {
	fmt.Printf("imbench bench: stock: stock k6 v1.8.1 (k6/websockets, one VU per connection) holding %d users for %s\n", users, b.hold)
	bt, err := startTargets(0)
	if err != nil {
		return nil, err
	}
	defer bt.stop()
	logins, err := stockLogins(bt, users)
	if err != nil {
		return nil, err
	}
	defer os.Remove(logins)
	res := &holdResult{Tool: "stock k6 v1.8.1 (k6/websockets)", UsersPlanned: users}
	cmd := exec.Command(filepath.Join(toolsBin, "k6-stock"), "run", "--quiet", "--no-color", "--address=",
		"--no-thresholds", "--summary-mode=disabled", filepath.Join("k6", "bench", "stock_hold.js"))
	cmd.Env = append(os.Environ(), "IM_LOGINS="+logins, "IM_PING_MS=20000",
		fmt.Sprintf("IM_HOLD_MS=%d", b.hold.Milliseconds()))
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
	<-done
	res.HeldSeconds = b.hold.Seconds()
	res.HeartbeatTimeouts = int64(metric(bt.metrics, "imbench_target_heartbeat_timeouts_total"))
	return res, err
}
