package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

type deliveryResult struct {
	Protocol          string  `json:"protocol"`
	Users             int     `json:"users"`
	Rate              float64 `json:"messages_per_second"`
	Deliveries        int64   `json:"deliveries_measured"`
	CPUSeconds        float64 `json:"cpu_seconds"`
	CPUMicrosPerDeliv float64 `json:"cpu_us_per_verified_delivery"`
	Lost              int64   `json:"lost"`
	Integrity         float64 `json:"integrity"`
	CPUProfile        string  `json:"cpu_profile"` // the generator's, for go tool pprof
}

// delivery measures generator CPU per verified delivery: a group of 200,
// all online, at a fixed rate, sampled over 30 s of steady sending.
func (b *bench) delivery(rate float64, protocol string) (*deliveryResult, error) {
	const users = 200
	msgs := int(rate*45) / users // about 45 s of sending
	fmt.Printf("imbench bench: delivery: %d users in one group, %.0f msg/s over %s, every message verified at %d members\n", users, rate, protocol, users-1)
	bt, err := startTargets(0)
	if err != nil {
		return nil, err
	}
	defer bt.stop()
	// The profile samples 100 times a second: about 1 % of the CPU it measures.
	if err := os.MkdirAll(b.out, 0o755); err != nil {
		return nil, err
	}
	profile, err := filepath.Abs(filepath.Join(b.out, fmt.Sprintf("cpu-%s-%g.pprof", protocol, rate)))
	if err != nil {
		return nil, err
	}
	run, err := b.runScenario(bt, "openim/fanout", protocol, 1, map[string]string{"IM_USERS": strconv.Itoa(users),
		"IM_MESSAGES": strconv.Itoa(msgs), "IM_RATE": strconv.FormatFloat(rate, 'f', -1, 64), "IM_SCALE": "1",
		"IMBENCH_CPUPROFILE": profile})
	if err != nil {
		return nil, err
	}
	res := &deliveryResult{Protocol: protocol, Users: users, Rate: rate, CPUProfile: profile}
	const sentName, pushedName = "imbench_target_messages_stored_total", "imbench_target_pushes_total"
	sent := func() float64 { return metric(bt.metrics, sentName) }
	if !waitFor(5*time.Minute, func() bool {
		select {
		case err := <-run.done:
			run.done <- err
			return true
		default:
		}
		return sent() > 0
	}) || sent() == 0 {
		if err := <-run.done; err != nil {
			return nil, err
		}
		return nil, errors.New("no message was sent")
	}
	time.Sleep(5 * time.Second)
	var c [][]float64 // pushed and stored, at each sample
	s1, s2, err := sampleWindow(run.pids(), 30*time.Second, func() { c = append(c, metrics(bt.metrics, pushedName, sentName)) })
	if err != nil {
		<-run.done
		return nil, err
	}
	c1, c2 := c[0], c[1]
	res.Deliveries = int64((c2[0] - c1[0]) - (c2[1] - c1[1])) // every push but the sender's own copy
	res.CPUSeconds = round6(s2.cpu - s1.cpu)
	if res.Deliveries > 0 {
		res.CPUMicrosPerDeliv = round2(res.CPUSeconds * 1e6 / float64(res.Deliveries))
	}
	if err := <-run.done; err != nil {
		return res, err
	}
	if sum, err := summary.Load(filepath.Join(b.resultsDir, run.id, "summary.json")); err == nil {
		res.Lost, res.Integrity = sum.Deliveries.Lost, sum.Integrity
	}
	return res, nil
}
