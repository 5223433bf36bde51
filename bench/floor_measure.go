package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/imbench/imbench/internal/stack"
)

// floorResult is the bare client's cost per delivery (floor.go), measured
// as the generator's is.
type floorResult struct {
	Rate              float64 `json:"messages_per_second"` // floorRate's: the generator's achieved rate where it fell short
	Deliveries        int64   `json:"deliveries_measured"`
	CPUSeconds        float64 `json:"cpu_seconds"`
	CPUMicrosPerDeliv float64 `json:"cpu_us_per_delivery"`
	// Over the floor's whole run: the pushes it read and those the target
	// wrote (equal, or the measurement fails), and over Wildfire the
	// messages its pulls brought.
	PushesRead    int64  `json:"pushes_read"`
	PushesWritten int64  `json:"pushes_written"`
	Pulled        int64  `json:"messages_pulled,omitempty"`
	Reader        string `json:"reader"`
	CPUProfile    string `json:"cpu_profile"` // as the generator's is taken, for go tool pprof; beside the bench's JSON
	// The target's CPU for the bare client's setup, as the generator's
	// is measured: what the setup must cost the server at least.
	TargetSetupCPU       float64 `json:"target_setup_cpu_seconds"`
	TargetSetupMsPerUser float64 `json:"target_setup_cpu_ms_per_user"`
}

// measureFloor runs `imbench bench-floor` in a process of its own against
// a fresh target: the delivery run's group and rate over protocol's
// sockets, messages in all, every user sending in turn. Its CPU is sampled over the
// same window as the generator's, and it must have read every push the
// target wrote.
func (b *bench) measureFloor(protocol string, rate float64, messages, round int) (*floorResult, error) {
	fmt.Printf("imbench bench: floor: a bare %s client, %d users in one group, %.0f msg/s\n", protocol, deliveryUsers, rate)
	bt, err := startTargets(0)
	if err != nil {
		return nil, err
	}
	defer bt.stop()
	var api, gateway string
	switch protocol {
	case "openim":
		api, gateway = "http://"+bt.api, bt.ws[0]
	case "wukongim":
		api, gateway = "http://"+bt.wkAPI, bt.wkTCP[0]
	case "wildfire":
		api, gateway = "http://"+bt.wfAdmin, "tcp://"+bt.wfMQTT
	default:
		return nil, fmt.Errorf("protocol %q has no floor client", protocol)
	}
	// Profiled as the generator is, so that both pay the same 1 %.
	profile, err := filepath.Abs(filepath.Join(b.out, b.profileName("cpu-floor", protocol, rate, round)))
	if err != nil {
		return nil, err
	}
	report, err := os.CreateTemp("", "imbench-floor-*.json")
	if err != nil {
		return nil, err
	}
	report.Close()
	defer os.Remove(report.Name())
	cmd := exec.Command(filepath.Join(stack.ToolsBin, "imbench"), "bench-floor", "-protocol", protocol,
		"-api", api, "-gateway", gateway, "-users", strconv.Itoa(deliveryUsers), "-rate", strconv.FormatFloat(rate, 'f', -1, 64),
		"-messages", strconv.Itoa(messages), "-body", strconv.Itoa(deliveryBody), "-out", report.Name())
	cmd.Env = append(os.Environ(), "IM_SECRET="+bt.secret, "IMBENCH_CPUPROFILE="+profile)
	var said tail
	cmd.Stdout, cmd.Stderr = io.MultiWriter(os.Stdout, &said), io.MultiWriter(os.Stderr, &said)
	endsWithBench(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	w, werr := deliveryWindow(bt, func() []int { return []int{cmd.Process.Pid} }, done)
	if werr != nil && !errors.Is(werr, errNoMessage) {
		cmd.Process.Kill()
	}
	if rerr := <-done; rerr != nil {
		err := fmt.Errorf("bench-floor: %w", rerr)
		if strings.Contains(said.String(), "a connection ended") {
			err = busyError{fmt.Errorf("%w: a bare client's connection ended", err)}
		}
		return nil, err
	}
	if werr != nil {
		return nil, werr
	}
	var rep floorReport
	raw, err := os.ReadFile(report.Name())
	if err == nil {
		err = json.Unmarshal(raw, &rep)
	}
	if err != nil {
		return nil, fmt.Errorf("bench-floor's report: %w", err)
	}
	res := &floorResult{Rate: rate, Deliveries: w.deliveries, CPUSeconds: w.cpu, PushesRead: rep.Pushes, Pulled: rep.Pulled, Reader: rep.Reader,
		CPUProfile: filepath.Base(profile), PushesWritten: int64(metric(bt.metrics, "imbench_target_pushes_total")),
		TargetSetupCPU: w.setupCPU, TargetSetupMsPerUser: setupPerUser(w.setupCPU, deliveryUsers)}
	if res.Deliveries > 0 {
		res.CPUMicrosPerDeliv = round2(res.CPUSeconds * 1e6 / float64(res.Deliveries))
	}
	switch {
	case res.PushesRead != res.PushesWritten:
		return res, fmt.Errorf("the floor read %d pushes of the %d the target wrote", res.PushesRead, res.PushesWritten)
	case protocol == "wildfire" && res.Pulled != res.PushesRead:
		return res, fmt.Errorf("the floor pulled %d messages of the %d it was notified of", res.Pulled, res.PushesRead)
	}
	return res, nil
}
