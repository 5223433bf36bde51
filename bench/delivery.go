package bench

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

type deliveryResult struct {
	Protocol string  `json:"protocol"`
	Users    int     `json:"users"`
	Rate     float64 `json:"messages_per_second"`
	// What the sender got stored over the window: below Rate when this
	// machine could not keep the plan's pace.
	SentRate          float64 `json:"messages_per_second_sent"`
	Deliveries        int64   `json:"deliveries_measured"`
	CPUSeconds        float64 `json:"cpu_seconds"`
	CPUMicrosPerDeliv float64 `json:"cpu_us_per_verified_delivery"`
	Lost              int64   `json:"lost"`
	Duplicates        int64   `json:"duplicates"`
	Corrupted         int64   `json:"corrupted"`
	Integrity         float64 `json:"integrity"`
	CPUProfile        string  `json:"cpu_profile"` // the generator's, for go tool pprof; beside the bench's JSON
	// Over the same window: the rate of verified deliveries, and the
	// reference target's CPU per delivery (the other half of this machine).
	DeliveriesPerSec  float64 `json:"verified_deliveries_per_second"`
	TargetMicrosPerDl float64 `json:"target_cpu_us_per_delivery"`
	// The target's CPU from the run's start to its first push: the users,
	// the group, their tokens and logins; per user in milliseconds.
	TargetSetupCPU       float64 `json:"target_setup_cpu_seconds"`
	TargetSetupMsPerUser float64 `json:"target_setup_cpu_ms_per_user"`
	// End-to-end latency over the whole run, from its summary.
	P50Ms float64 `json:"e2e_p50_ms"`
	P99Ms float64 `json:"e2e_p99_ms"`
	// The bare client's, measured the same way right after (floor_measure.go),
	// and the generator's CPU per delivery over it.
	Floor     *floorResult `json:"floor,omitempty"`
	OverFloor float64      `json:"generator_over_floor,omitempty"`
	// Every round's figures, in the order they ran: the generator's figures
	// above are its median round's, Floor the floor's median round, and
	// OverFloor the ratio of the two.
	Rounds []deliveryRound `json:"rounds,omitempty"`
	// NotMeasured says why there is no figure: every try of every round
	// failed for the machine's sake (busyTries each).
	NotMeasured string `json:"not_measured,omitempty"`
}

// deliveryRound is one generator run and the floor run right after it. At
// a low rate a run's cost per delivery moves by up to a third from one run to
// the next on this machine (where the scheduler puts the processes, how
// reads batch), for the generator and the floor alike: one pair is a draw,
// each side's median of several is the figure.
type deliveryRound struct {
	Generator float64 `json:"generator_cpu_us_per_delivery"`
	Floor     float64 `json:"floor_cpu_us_per_delivery"`
	Ratio     float64 `json:"generator_over_floor"`
}

// The delivery workload: a group of deliveryUsers, all online, every message
// deliveryBody bytes of text (openim/fanout's default, set for both).
const deliveryUsers, deliveryBody = 200, 128

// deliverySending is how long a delivery run sends: the window
// (deliveryWindow) starts 5 s after the first push and ends well before.
const deliverySending, deliveryMeasured = 32 * time.Second, 20 * time.Second

// delivery measures rounds of generator CPU per verified delivery and the
// floor's per delivery over the same workload right after, each against a
// fresh target, and keeps each side's median (medianRound).
func (b *bench) delivery(rate float64, protocol string) (*deliveryResult, error) {
	var runs []*deliveryResult
	var busy error
	for i := range max(b.rounds, 1) {
		res, err := retryBusy(fmt.Sprintf("%s at %g msg/s, round %d", protocol, rate, i+1), func() (*deliveryResult, error) {
			return b.deliveryRound(rate, protocol, i)
		})
		if isBusy(err) {
			busy = err // this round is left out; the others may stand
			continue
		}
		if err != nil {
			return res, err
		}
		runs = append(runs, res)
	}
	if len(runs) == 0 {
		return &deliveryResult{Protocol: protocol, Users: deliveryUsers, Rate: rate, NotMeasured: notMeasured(busy)}, nil
	}
	med := medianRound(runs)
	if len(runs) > 1 {
		fmt.Printf("imbench bench: %s at %g msg/s: generator ÷ floor %.2f%s\n", protocol, rate, med.OverFloor, roundsText(med.Rounds))
	}
	return med, nil
}

// medianRound keeps, of several rounds, the generator's run of the median
// cost per delivery and the floor's run of the median cost per delivery
// (each side's median, as benchstat compares two sets of runs: one
// round's draw on either side moves neither), their ratio, and every
// round's figures in the order they ran. One round is kept as it is.
func medianRound(runs []*deliveryResult) *deliveryResult {
	if len(runs) == 1 {
		return runs[0]
	}
	floorOf := func(r *deliveryResult) float64 {
		if r.Floor == nil {
			return 0
		}
		return r.Floor.CPUMicrosPerDeliv
	}
	gen := slices.SortedStableFunc(slices.Values(runs), func(a, b *deliveryResult) int {
		return cmp.Compare(a.CPUMicrosPerDeliv, b.CPUMicrosPerDeliv)
	})[len(runs)/2]
	floor := slices.SortedStableFunc(slices.Values(runs), func(a, b *deliveryResult) int { return cmp.Compare(floorOf(a), floorOf(b)) })[len(runs)/2]
	med := *gen
	med.Floor, med.OverFloor, med.Rounds = floor.Floor, 0, nil
	if f := floorOf(floor); f > 0 {
		med.OverFloor = round2(med.CPUMicrosPerDeliv / f)
	}
	for _, r := range runs {
		med.Rounds = append(med.Rounds, deliveryRound{Generator: r.CPUMicrosPerDeliv, Floor: floorOf(r), Ratio: r.OverFloor})
	}
	return &med
}

// roundFigures is one figure of each round, in the order they ran.
func roundFigures(rs []deliveryRound, figure func(deliveryRound) float64) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = strconv.FormatFloat(figure(r), 'f', 2, 64)
	}
	return strings.Join(out, ", ")
}

// deliveryRound is one round of delivery: the generator, then the floor.
func (b *bench) deliveryRound(rate float64, protocol string, round int) (*deliveryResult, error) {
	msgs := max(int(rate*deliverySending.Seconds())/deliveryUsers, 1)
	res, err := b.generatorDelivery(rate, protocol, msgs, round)
	if err != nil {
		return res, err
	}
	fmt.Printf("imbench bench: generator over %s at %g msg/s (%.0f sent): %.2f µs per verified delivery (%d deliveries in the window, %.0f/s; target %.2f µs each; e2e p50 %.1f ms, p99 %.1f ms)\n",
		protocol, rate, res.SentRate, res.CPUMicrosPerDeliv, res.Deliveries, res.DeliveriesPerSec, res.TargetMicrosPerDl, res.P50Ms, res.P99Ms)
	if res.Floor, err = b.measureFloor(protocol, floorRate(rate, res.SentRate), msgs*deliveryUsers, round); err != nil {
		return res, fmt.Errorf("floor: %w", err)
	}
	if res.Floor.CPUMicrosPerDeliv > 0 {
		res.OverFloor = round2(res.CPUMicrosPerDeliv / res.Floor.CPUMicrosPerDeliv)
	}
	return res, nil
}

// floorRate is the rate the floor sends at: the generator's achieved rate
// where it fell more than 5 % short of the plan, else the plan's. Reads
// batch more frames the more a connection is sent, so a floor let run at a
// pace the generator's machine did not reach would be cheaper per delivery
// for that alone, not for doing less.
func floorRate(planned, sent float64) float64 {
	if sent > 0 && sent < 0.95*planned {
		return math.Round(sent)
	}
	return planned
}

// floorPace says, in the bench's table, when the floor ran at the
// generator's achieved pace instead of the plan's.
func floorPace(d *deliveryResult) string {
	if d.Floor == nil || d.Floor.Rate == d.Rate {
		return ""
	}
	return fmt.Sprintf(", the generator's pace; %g planned", d.Rate)
}

// generatorDelivery measures generator CPU per verified delivery: msgs
// from each user, at a fixed rate, sampled over deliveryMeasured of steady
// sending.
func (b *bench) generatorDelivery(rate float64, protocol string, msgs, round int) (*deliveryResult, error) {
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
	profile, err := filepath.Abs(filepath.Join(b.out, b.profileName("cpu", protocol, rate, round)))
	if err != nil {
		return nil, err
	}
	run, err := b.runScenario(bt, "openim/fanout", protocol, 1, map[string]string{"IM_USERS": strconv.Itoa(users),
		"IM_MESSAGES": strconv.Itoa(msgs), "IM_RATE": strconv.FormatFloat(rate, 'f', -1, 64), "IM_SCALE": "1",
		"IM_BODY_SIZE": strconv.Itoa(deliveryBody), "IMBENCH_CPUPROFILE": profile})
	if err != nil {
		return nil, err
	}
	res := &deliveryResult{Protocol: protocol, Users: users, Rate: rate, CPUProfile: filepath.Base(profile)}
	w, werr := deliveryWindow(bt, run.pids, run.done)
	rerr := <-run.done
	if werr != nil {
		if errors.Is(werr, errNoMessage) && rerr != nil {
			return nil, rerr
		}
		return nil, werr
	}
	res.Deliveries, res.CPUSeconds = w.deliveries, w.cpu
	res.TargetSetupCPU, res.TargetSetupMsPerUser = w.setupCPU, setupPerUser(w.setupCPU, users)
	if res.Deliveries > 0 {
		res.CPUMicrosPerDeliv = round2(res.CPUSeconds * 1e6 / float64(res.Deliveries))
		res.TargetMicrosPerDl = round2(w.targetCPU * 1e6 / float64(res.Deliveries))
		res.DeliveriesPerSec = round2(float64(res.Deliveries) / w.seconds)
		res.SentRate = round2(float64(w.stored) / w.seconds)
	}
	if rerr != nil {
		return res, rerr
	}
	if sum, err := summary.Load(filepath.Join(b.resultsDir, run.id, "summary.json")); err == nil {
		res.Lost, res.Integrity = sum.Deliveries.Lost, sum.Integrity
		res.Duplicates, res.Corrupted = sum.Deliveries.Duplicates, sum.Deliveries.Corrupted
		res.P50Ms, res.P99Ms = sum.Latency.E2E.P50, sum.Latency.E2E.P99
	}
	return res, nil
}

var errNoMessage = errors.New("no message was pushed")

// deliveryWindow waits until the target has pushed a message (or the
// sending process has ended: errNoMessage), lets the sending settle for
// 5 s, then measures the CPU of pids over deliveryMeasured and the deliveries the
// target pushed meanwhile: every push but the sender's own copy. A push,
// not a stored message, starts it: OpenIM's group creation stores a
// notification while the users are still logging in. The target's CPU
// until that push is the setup's (called as the run starts).
func deliveryWindow(bt *benchTarget, pids func() []int, done chan error) (w window, err error) {
	const sentName, pushedName = "imbench_target_messages_stored_total", "imbench_target_pushes_total"
	pushed := func() float64 { return metric(bt.metrics, pushedName) }
	target := bt.pids()
	before := sumSamples(sampleEach(target), nil, time.Now())
	if !waitFor(5*time.Minute, func() bool {
		select {
		case err := <-done:
			done <- err
			return true
		default:
		}
		return pushed() > 0
	}) || pushed() == 0 {
		return w, errNoMessage
	}
	w.setupCPU = round6(sumSamples(sampleEach(target), nil, time.Now()).cpu - before.cpu)
	time.Sleep(5 * time.Second)
	var c [][]float64 // pushed and stored, at each sample
	var t []procSample
	s1, s2, err := sampleWindow(pids(), deliveryMeasured, func() {
		c = append(c, metrics(bt.metrics, pushedName, sentName))
		t = append(t, sumSamples(sampleEach(target), nil, time.Now()))
	})
	if err != nil {
		return w, err
	}
	c1, c2 := c[0], c[1]
	w.deliveries, w.stored, w.cpu = int64((c2[0]-c1[0])-(c2[1]-c1[1])), int64(c2[1]-c1[1]), round6(s2.cpu-s1.cpu)
	w.targetCPU, w.seconds = round6(t[1].cpu-t[0].cpu), s2.at.Sub(s1.at).Seconds()
	return w, nil
}

// setupPerUser is a setup's CPU seconds in milliseconds a user.
func setupPerUser(cpu float64, users int) float64 {
	if users <= 0 {
		return 0
	}
	return round2(cpu * 1000 / float64(users))
}

// window is what deliveryWindow measured: deliveries, messages stored, the
// sampled processes' CPU seconds and the target's over the same wall
// seconds, and the target's over the setup before them.
type window struct {
	deliveries               int64
	stored                   int64
	cpu, targetCPU, setupCPU float64
	seconds                  float64
}

// profileName names a delivery run's CPU profile: prefix, protocol and
// rate, and the round where there are several.
func (b *bench) profileName(prefix, protocol string, rate float64, round int) string {
	if b.rounds > 1 {
		return fmt.Sprintf("%s-%s-%g-r%d.pprof", prefix, protocol, rate, round+1)
	}
	return fmt.Sprintf("%s-%s-%g.pprof", prefix, protocol, rate)
}
