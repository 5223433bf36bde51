package bench

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

type distributedResult struct {
	UsersPlanned      int     `json:"users_planned"`
	UsersHeld         int64   `json:"users_held"`
	Processes         int     `json:"generator_processes"` // execution segments asked for
	Gateways          int     `json:"target_gateways"`
	GeneratorRSSBytes int64   `json:"generator_rss_bytes"`
	RSSPerUserBytes   float64 `json:"generator_rss_per_user_bytes"`
	TargetRSSBytes    int64   `json:"target_rss_bytes"` // the core's and the gateways', at the peak
	TargetRSSPerUser  float64 `json:"target_rss_per_user_bytes"`
	HeartbeatTimeouts int64   `json:"heartbeat_timeouts"`
	ConnectErrors     int64   `json:"connect_errors"`
	NeverOnline       int64   `json:"never_online"`
	Disconnects       int64   `json:"disconnects"`
	SecondsToOnline   float64 `json:"seconds_to_online"`
	HeldSeconds       float64 `json:"held_seconds"` // every user online together
	// What the kernel dropped or retransmitted meanwhile: where lost
	// connections come from when the machine, not a process, gave way.
	Kernel *kernelCounters `json:"kernel,omitempty"`
}

// distributed holds total users at once: one run over procs execution
// segments (the run's processes, all sampled), against a core and enough
// gateways that none holds more than 15,000 connections.
func (b *bench) distributed(total, procs int) (*distributedResult, error) {
	gateways := (total + 14999) / 15000
	fmt.Printf("imbench bench: distributed: %d users over %d generator segments and %d target gateways\n", total, procs, gateways)
	bt, err := startTargets(gateways)
	if err != nil {
		return nil, err
	}
	defer bt.stop()
	res := &distributedResult{UsersPlanned: total, Processes: procs, Gateways: gateways}
	began := time.Now()
	kernelBefore, kerr := readKernelCounters()
	// The login phase lasts this window on the run's common clock, so that
	// the hold begins with every user in: 400 logins a second in all plus
	// 30 s. With 250,000 online this machine once managed about 530 a
	// second at load 50, and a window at 1,000 a second left processes
	// behind their phases.
	window := time.Duration(max(150, total/400+30)) * time.Second
	run, err := b.runScenario(bt, "openim/hold", "openim", procs, map[string]string{"IM_USERS": strconv.Itoa(total),
		"IM_HOLD": b.hold.String(), "IM_SCALE": "1", "IM_LOGIN_WINDOW": window.String(), "IM_VUS": strconv.Itoa(procs),
		// 8 logins in flight per process, not 64: the machine logs in
		// as fast either way, and with many at once waiting on starved
		// gateways a few handshakes outlast their 10 s (64: 49 did, 16:
		// 0 and 1 in two runs, 8: none).
		"IM_LOGIN_PARALLEL": "8"})
	if err != nil {
		return nil, err
	}
	online := func() int64 { return int64(metric([]string{bt.core}, "imbench_target_connections")) }
	var peak int64
	var rss, targetRSS int64
	finished := false
	for !finished {
		select {
		case err = <-run.done:
			finished = true
		case <-time.After(2 * time.Second):
			n := online()
			if n > peak {
				peak = n
				if res.SecondsToOnline == 0 && int(n) >= total {
					res.SecondsToOnline = round2(time.Since(began).Seconds())
				}
				rss = max(rss, sumSamples(sampleEach(run.pids()), nil, time.Now()).rss)
				targetRSS = max(targetRSS, sumSamples(sampleEach(bt.pids()), nil, time.Now()).rss)
			}
		}
	}
	if kernelAfter, err := readKernelCounters(); err == nil && kerr == nil {
		k := kernelAfter.since(kernelBefore)
		res.Kernel = &k
	}
	res.UsersHeld = peak
	res.GeneratorRSSBytes = rss
	res.TargetRSSBytes = targetRSS
	if peak > 0 {
		res.RSSPerUserBytes = round2(float64(rss) / float64(peak))
		res.TargetRSSPerUser = round2(float64(targetRSS) / float64(peak))
	}
	res.HeartbeatTimeouts = int64(metric(bt.metrics, "imbench_target_heartbeat_timeouts_total"))
	if sum, rerr := summary.Load(filepath.Join(b.resultsDir, run.id, "summary.json")); rerr == nil {
		res.Disconnects, res.ConnectErrors, res.NeverOnline = sum.Users.Disconnects, sum.Users.ConnectErrors, sum.Users.NeverOnline
		res.HeldSeconds = sum.Users.HeldSeconds
	}
	return res, err
}
