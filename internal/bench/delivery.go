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
	// The bare client's, measured the same way right after (floor_measure.go),
	// and the generator's CPU per delivery over it.
	Floor     *floorResult `json:"floor,omitempty"`
	OverFloor float64      `json:"generator_over_floor,omitempty"`
}

// The delivery workload: a group of deliveryUsers, all online, every message
// deliveryBody bytes of text (openim/fanout's default, set for both).
const deliveryUsers, deliveryBody = 200, 128

// delivery measures generator CPU per verified delivery, then the floor's
// per delivery over the same workload, each against a fresh target.
func (b *bench) delivery(rate float64, protocol string) (*deliveryResult, error) {
	msgs := int(rate*45) / deliveryUsers // about 45 s of sending
	res, err := b.generatorDelivery(rate, protocol, msgs)
	if err != nil {
		return res, err
	}
	fmt.Printf("imbench bench: generator over %s at %g msg/s: %.2f µs per verified delivery (%d deliveries in the window)\n",
		protocol, rate, res.CPUMicrosPerDeliv, res.Deliveries)
	if res.Floor, err = b.measureFloor(protocol, rate, msgs*deliveryUsers); err != nil {
		return res, fmt.Errorf("floor: %w", err)
	}
	if res.Floor.CPUMicrosPerDeliv > 0 {
		res.OverFloor = round2(res.CPUMicrosPerDeliv / res.Floor.CPUMicrosPerDeliv)
	}
	return res, nil
}

// generatorDelivery measures generator CPU per verified delivery: msgs
// from each user, at a fixed rate, sampled over 30 s of steady sending.
func (b *bench) generatorDelivery(rate float64, protocol string, msgs int) (*deliveryResult, error) {
	const users = deliveryUsers
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
		"IM_BODY_SIZE": strconv.Itoa(deliveryBody), "IMBENCH_CPUPROFILE": profile})
	if err != nil {
		return nil, err
	}
	res := &deliveryResult{Protocol: protocol, Users: users, Rate: rate, CPUProfile: profile}
	deliveries, cpu, werr := deliveryWindow(bt, run.pids, run.done)
	rerr := <-run.done
	if werr != nil {
		if errors.Is(werr, errNoMessage) && rerr != nil {
			return nil, rerr
		}
		return nil, werr
	}
	res.Deliveries, res.CPUSeconds = deliveries, cpu
	if res.Deliveries > 0 {
		res.CPUMicrosPerDeliv = round2(res.CPUSeconds * 1e6 / float64(res.Deliveries))
	}
	if rerr != nil {
		return res, rerr
	}
	if sum, err := summary.Load(filepath.Join(b.resultsDir, run.id, "summary.json")); err == nil {
		res.Lost, res.Integrity = sum.Deliveries.Lost, sum.Integrity
	}
	return res, nil
}

var errNoMessage = errors.New("no message was pushed")

// deliveryWindow waits until the target has pushed a message (or the
// sending process has ended: errNoMessage), lets the sending settle for
// 5 s, then measures the CPU of pids over 30 s and the deliveries the
// target pushed meanwhile: every push but the sender's own copy. A push,
// not a stored message, starts it: OpenIM's group creation stores a
// notification while the users are still logging in.
func deliveryWindow(bt *benchTarget, pids func() []int, done chan error) (deliveries int64, cpu float64, err error) {
	const sentName, pushedName = "imbench_target_messages_stored_total", "imbench_target_pushes_total"
	pushed := func() float64 { return metric(bt.metrics, pushedName) }
	if !waitFor(5*time.Minute, func() bool {
		select {
		case err := <-done:
			done <- err
			return true
		default:
		}
		return pushed() > 0
	}) || pushed() == 0 {
		return 0, 0, errNoMessage
	}
	time.Sleep(5 * time.Second)
	var c [][]float64 // pushed and stored, at each sample
	s1, s2, err := sampleWindow(pids(), 30*time.Second, func() { c = append(c, metrics(bt.metrics, pushedName, sentName)) })
	if err != nil {
		return 0, 0, err
	}
	c1, c2 := c[0], c[1]
	return int64((c2[0] - c1[0]) - (c2[1] - c1[1])), round6(s2.cpu - s1.cpu), nil
}
