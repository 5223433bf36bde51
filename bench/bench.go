// Package bench is `make bench` (`imbench bench`): it measures the
// generator, each figure against a baseline taken in the same run on the
// same machine (absolute numbers on a shared machine drift; ratios hold):
//
//	density      one generator process (imbench run) holding as many users as
//	             its file limit allows
//	baseline     as many users held by the seed's own load program's way of
//	             holding them (OpenIM's msgtest: a gorilla/websocket connection,
//	             a reader and a heartbeat goroutine per user), one tool at a
//	             time, each against a fresh target of the same kind: RSS and
//	             CPU per user of each and their ratio (baseline.go)
//	delivery     generator CPU per verified delivery, each at a fixed message
//	             rate (light and heavy: the cost per delivery falls as more
//	             of them share a wake-up), over the floor: a bare client
//	             (`imbench bench-floor`, floor.go) reading and acknowledging
//	             the same pushes, measured the same way right after
//	distributed  100,000 users over execution-segment processes and a target
//	             spread over a core and gateway processes
//	flat         generator RSS, open files, threads and goroutines over a long run at a
//	             fixed rate against its own earlier samples (the slope of RSS
//	             per hour), and the run's latencies
//
// Everything runs on loopback against reference targets the bench starts,
// from the project root (it runs .tools/bin/imbench and imbench-target).
package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/runid"
	"github.com/imbench/imbench/internal/stack"
)

type benchResult struct {
	StartedAt       time.Time          `json:"started_at"`
	Commit          string             `json:"commit"` // imbench's, as built; "+dirty" when the tree had changes
	Options         string             `json:"options"`
	Machine         map[string]any     `json:"machine"`
	Limits          map[string]string  `json:"limits"`
	UsersHeld       int64              `json:"users_held"`         // the distributed run's peak, users online at once
	RSSPerUserBytes float64            `json:"rss_per_user_bytes"` // the density run's
	Density         *holdResult        `json:"density,omitempty"`
	Baseline        *holdResult        `json:"baseline,omitempty"`
	Ratio           map[string]float64 `json:"baseline_over_imbench,omitempty"`
	Delivery        []*deliveryResult  `json:"delivery,omitempty"`
	// The same density and delivery measurements over the other protocols
	// the reference target speaks (those above are OpenIM's, which the
	// baseline speaks too).
	Protocols map[string]*protocolBench `json:"other_protocols,omitempty"`
	// The delivery run with the most verified deliveries a second at an
	// e2e p99 within 100 ms, every delivery verified.
	Throughput  *deliveryResult    `json:"best_deliveries_at_p99_100ms,omitempty"`
	Distributed *distributedResult `json:"distributed,omitempty"`
	Flat        *flatResult        `json:"flat,omitempty"`
	Notes       []string           `json:"notes,omitempty"`
}

// Options are what Run measures and how, checked by the caller.
type Options struct {
	Users        int             // users of the single-process runs (0: what the file limit allows)
	Total        int             // users of the distributed run
	Procs        int             // its generator processes (execution segments)
	Hold         time.Duration   // how long users are held online
	Want         map[string]bool // the measurements: density, baseline, delivery, distributed, flat
	Out          string          // where the JSON goes
	Rates        []float64       // messages per second of the delivery runs
	Rounds       int             // delivery runs (generator and floor) at each rate; each side's median is kept
	Flat         time.Duration   // how long the flat run sends
	FlatRate     float64         // messages per second of its open classes
	FlatScenario string          // its workload (IsFlatScenario)
	Protocols    []string        // other protocols whose density and delivery are measured too
	SkipOpenIM   bool            // leave OpenIM's density and delivery out
}

// Run takes the measurements o wants, writes them as JSON under o.Out and
// prints their table. It needs imbench and imbench-target built in
// .tools/bin.
func Run(o Options) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	lim.Cur = lim.Max // children inherit the raised soft limit
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("raising the open-files limit: %w", err)
	}
	if o.Users == 0 {
		o.Users = int(lim.Max) - 500 // room for the process's own files
	}
	for _, b := range []string{"imbench", "imbench-target"} {
		if _, err := os.Stat(filepath.Join(stack.ToolsBin, b)); err != nil {
			return fmt.Errorf("%s is not built: run make bench", filepath.Join(stack.ToolsBin, b))
		}
	}
	os.Setenv("IMBENCH_NO_OBSERVE", "1") // bench runs report to nobody: the stack's cost is not theirs
	res := &benchResult{StartedAt: time.Now().UTC(), Commit: commit(), Options: o.String(), Machine: machineInfo(), Limits: limitsInfo(lim)}
	fmt.Printf("imbench bench: open files %d (hard limit), ephemeral ports %s\n", lim.Max, res.Limits["net.ipv4.ip_local_port_range"])
	b := &bench{hold: o.Hold, out: o.Out, resultsDir: filepath.Join(o.Out, "runs"), rounds: o.Rounds}
	targetLogs = filepath.Join(o.Out, "targets") // why a target process failed, if one did
	// A point that fails is marked and the bench goes on: one point does
	// not lose the page. A failure for the machine's sake is tried again
	// first; any other ends the bench with an error once the page is out.
	var failed []error
	point := func(name string, measure func() error) {
		_, err := retryBusy(name, func() (struct{}, error) { return struct{}{}, measure() })
		switch {
		case err == nil:
		case isBusy(err):
			res.Notes = append(res.Notes, name+": "+notMeasured(err))
		default:
			res.Notes = append(res.Notes, name+": not measured: "+err.Error())
			failed = append(failed, fmt.Errorf("%s: %w", name, err))
		}
	}
	if o.Want["density"] && !o.SkipOpenIM {
		point("density", func() (err error) {
			res.Density, err = b.holdOurs(o.Users, "openim")
			if res.Density != nil {
				res.RSSPerUserBytes = res.Density.RSSPerUserBytes
			}
			return err
		})
	}
	if o.Want["baseline"] && !o.SkipOpenIM {
		point("baseline", func() (err error) { res.Baseline, err = b.holdBaseline(o.Users); return err })
	}
	res.Ratio = baselineRatio(res.Density, res.Baseline)
	if o.Want["delivery"] && !o.SkipOpenIM {
		for _, r := range o.Rates {
			point(fmt.Sprintf("delivery at %g msg/s", r), func() error {
				d, err := b.delivery(r, "openim")
				if err == nil {
					res.Delivery = append(res.Delivery, d)
				}
				return err
			})
		}
	}
	for _, p := range o.Protocols {
		if p = strings.TrimSpace(p); p == "" || (!o.Want["density"] && !o.Want["delivery"]) {
			continue
		}
		if p == "openim" {
			return badinput.Errorf("openim is measured already; -protocols names the others")
		}
		pb := &protocolBench{}
		if o.Want["density"] {
			point(p+" density", func() (err error) { pb.Density, err = b.holdOurs(o.Users, p); return err })
		}
		if o.Want["delivery"] {
			for _, r := range o.Rates {
				point(fmt.Sprintf("%s delivery at %g msg/s", p, r), func() error {
					d, err := b.delivery(r, p)
					if err == nil {
						pb.Delivery = append(pb.Delivery, d)
					}
					return err
				})
			}
		}
		if res.Protocols == nil {
			res.Protocols = map[string]*protocolBench{}
		}
		res.Protocols[p] = pb
	}
	res.Throughput = bestWithin(res, 100)
	if o.Want["flat"] {
		point("flat", func() (err error) { res.Flat, err = b.flat(o.FlatScenario, o.Flat, o.FlatRate); return err })
	}
	if o.Want["distributed"] {
		point("distributed", func() (err error) {
			res.Distributed, err = b.distributed(o.Total, o.Procs)
			if res.Distributed != nil {
				res.UsersHeld = res.Distributed.UsersHeld
			}
			return err
		})
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(o.Out, res.StartedAt.Format("20060102-150405")+".json")
	raw, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Println()
	writeTable(os.Stdout, res)
	fmt.Println("imbench bench: wrote", path)
	return errors.Join(failed...)
}

// protocolBench is density and delivery over one more protocol.
type protocolBench struct {
	Density  *holdResult       `json:"density,omitempty"`
	Delivery []*deliveryResult `json:"delivery,omitempty"`
}

type bench struct {
	hold       time.Duration
	out        string // where the JSON and the CPU profiles go
	resultsDir string
	rounds     int // delivery rounds at each rate
}

// benchRun is one generator run the bench started: `imbench run` as a
// process of its own, so that what it costs is measured apart from the
// bench (and from the target).
type benchRun struct {
	id   string
	cmd  *exec.Cmd
	done chan error // its exit, sent once
	said tail       // what it printed last
}

// pids are the run's processes: the `imbench run` the bench started and
// every imbench process of the same run (segment children it launched, or
// any naming the run with -run-id).
func (r *benchRun) pids() []int { return runProcesses(r.cmd.Process.Pid, r.id) }

// runScenario runs one scenario with the generator, `imbench run`, against
// bt in the background. protocol "" is the scenario's own (see cmd/imbench's parseRun).
func (b *bench) runScenario(bt *benchTarget, scenario, protocol string, segments int, env map[string]string) (*benchRun, error) {
	r := &benchRun{id: "bench_" + runid.New(), done: make(chan error, 1)}
	args := []string{"run", "-scenario", scenario, "-target", "reference", "-run-id", r.id, "-q",
		"-results", b.resultsDir, "-segments", strconv.Itoa(segments)}
	if protocol != "" {
		args = append(args, "-protocol", protocol)
	}
	r.cmd = exec.Command(filepath.Join(stack.ToolsBin, "imbench"), args...)
	// Where the target is, the same for every measurement, then this
	// measurement's knobs.
	r.cmd.Env = append(os.Environ(),
		"IM_API_URL=http://"+bt.api,
		"IM_WS_URL="+strings.Join(bt.ws, ","),
		"IM_WUKONGIM_API_URL=http://"+bt.wkAPI,
		"IM_WUKONGIM_TCP_URL="+strings.Join(bt.wkTCP, ","),
		"IM_WUKONGIM_WS_URL="+strings.Join(bt.wkWS, ","),
		"IM_WILDFIRE_ADMIN_URL=http://"+bt.wfAdmin,
		"IM_WILDFIRE_MQTT_URL=tcp://"+bt.wfMQTT,
		"IM_SECRET="+bt.secret,
		"IM_KEEP=1") // each target is thrown away after its measurement: removing the users would only add to the profile
	for _, k := range slices.Sorted(maps.Keys(env)) {
		r.cmd.Env = append(r.cmd.Env, k+"="+env[k])
	}
	r.cmd.Stdout, r.cmd.Stderr = io.MultiWriter(os.Stdout, &r.said), io.MultiWriter(os.Stderr, &r.said)
	endsWithBench(r.cmd)
	if err := r.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		err := r.cmd.Wait()
		if err != nil {
			err = fmt.Errorf("imbench run %s (%s): %w", r.id, scenario, err)
			if r.cmd.ProcessState.ExitCode() == 99 && onlyPaceCrossed(r.said.String()) {
				err = busyError{fmt.Errorf("%w: it kept less than 90 %% of its pace", err)}
			}
		}
		r.done <- err
	}()
	return r, nil
}

// floorSetupText is the bare client's setup cost beside the generator's.
func floorSetupText(f *floorResult) string {
	if f == nil || f.TargetSetupCPU <= 0 {
		return ""
	}
	return fmt.Sprintf("; the bare client's %.2f ms per user", f.TargetSetupMsPerUser)
}

// roundsText says, where a delivery measurement ran several rounds, that
// the ratio is of the two medians, with every round's figures.
func roundsText(rs []deliveryRound) string {
	if len(rs) < 2 {
		return ""
	}
	return fmt.Sprintf(", of the medians of %d rounds (generator %s µs; floor %s µs)", len(rs),
		roundFigures(rs, func(r deliveryRound) float64 { return r.Generator }), roundFigures(rs, func(r deliveryRound) float64 { return r.Floor }))
}

// writeTable writes r's figures as a markdown table, a row a measurement.
func writeTable(w io.Writer, r *benchResult) {
	fmt.Fprintln(w, "| measurement | figure |")
	fmt.Fprintln(w, "|---|---|")
	density := func(proto string, d *holdResult) {
		fmt.Fprintf(w, "| one imbench run process, %s | %d users held, %.0f B RSS per user, %.4f CPU s per 1,000 users per s |\n",
			proto, d.UsersHeld, d.RSSPerUserBytes, d.CPUPer1000UsersPerSec)
	}
	delivery := func(d *deliveryResult) {
		if d.NotMeasured != "" {
			fmt.Fprintf(w, "| generator CPU per verified delivery, %s at %g msg/s | %s |\n", d.Protocol, d.Rate, d.NotMeasured)
			return
		}
		fmt.Fprintf(w, "| generator CPU per verified delivery, %s | %.2f µs (%d deliveries at %.0f msg/s × %d members: %.0f a second, e2e p50/p99 %.1f/%.1f ms, target %.2f µs each); profile `%s` |\n",
			d.Protocol, d.CPUMicrosPerDeliv, d.Deliveries, d.Rate, d.Users-1, d.DeliveriesPerSec, d.P50Ms, d.P99Ms, d.TargetMicrosPerDl, filepath.Base(d.CPUProfile))
		if f := d.Floor; f != nil {
			fmt.Fprintf(w, "| floor: bare client CPU per delivery, %s | %.2f µs (%d deliveries at %.0f msg/s%s; read %d of %d pushes); generator ÷ floor %.2f×%s |\n",
				d.Protocol, f.CPUMicrosPerDeliv, f.Deliveries, f.Rate, floorPace(d), f.PushesRead, f.PushesWritten, d.OverFloor, roundsText(d.Rounds))
		}
		if d.TargetSetupCPU > 0 {
			fmt.Fprintf(w, "| server's CPU to set up, %s | %.2f ms per user (%.2f s for %d users: accounts, the group, tokens, logins)%s |\n",
				d.Protocol, d.TargetSetupMsPerUser, d.TargetSetupCPU, d.Users, floorSetupText(d.Floor))
		}
	}
	if d := r.Density; d != nil {
		density("openim", d)
	}
	if s := r.Baseline; s != nil {
		fmt.Fprintf(w, "| baseline: msgtest's way, one process | %d users held, %.0f B RSS per user, %.4f CPU s per 1,000 users per s |\n",
			s.UsersHeld, s.RSSPerUserBytes, s.CPUPer1000UsersPerSec)
	}
	if r.Ratio != nil {
		fmt.Fprintf(w, "| baseline ÷ imbench | %.1f× memory per user, %.1f× CPU per user |\n", r.Ratio["rss_per_user"], r.Ratio["cpu_per_user"])
	}
	for _, d := range r.Delivery {
		delivery(d)
	}
	for _, p := range slices.Sorted(maps.Keys(r.Protocols)) {
		if d := r.Protocols[p].Density; d != nil {
			density(p, d)
		}
		for _, d := range r.Protocols[p].Delivery {
			delivery(d)
		}
	}
	if d := r.Throughput; d != nil {
		fmt.Fprintf(w, "| verified deliveries a second at e2e p99 ≤ 100 ms | %.0f (%s at %.0f msg/s planned, p50/p99 %.1f/%.1f ms) |\n",
			d.DeliveriesPerSec, d.Protocol, d.Rate, d.P50Ms, d.P99Ms)
	}
	if f := r.Flat; f != nil {
		const mib = 1 << 20
		fmt.Fprintf(w, "| generator RSS over %s at %g msg/s | slope %+.2f %%/h (%+.2f MiB/h, %.1f %% of the %.1f MiB/h per-sample Trends would add), mean %.1f MiB; "+
			"e2e p50/p99 %.1f/%.1f ms over %d deliveries, %d lost; open files %d→%d, threads %d→%d, goroutines %d→%d (max %d, %+.1f/h) |\n",
			shortDuration(time.Duration(f.SendingSeconds*float64(time.Second))), f.Rate,
			f.RSSSlopePercentPerHour, f.RSSSlopeBytesPerHour/mib, f.SlopeOverTrends*100, f.TrendBytesPerHour/mib, f.RSSMeanBytes/mib,
			f.E2E.P50, f.E2E.P99, f.E2E.Count, f.Lost, f.FDsFirst, f.FDsLast, f.ThreadsFirst, f.ThreadsLast,
			f.GoroutinesFirst, f.GoroutinesLast, f.GoroutinesMax, f.GoroutineSlopePerHour)
	}
	if d := r.Distributed; d != nil {
		fmt.Fprintf(w, "| distributed | %d users held at once by %d generator processes and %d target gateways for %.0f s, online in %.0f s; "+
			"%.0f B generator RSS and %.0f B target RSS per user; %d connect errors, %d never online, %d heartbeat timeouts, %d disconnects |\n",
			d.UsersHeld, d.Processes, d.Gateways, d.HeldSeconds, d.SecondsToOnline, d.RSSPerUserBytes, d.TargetRSSPerUser,
			d.ConnectErrors, d.NeverOnline, d.HeartbeatTimeouts, d.Disconnects)
		if k := d.Kernel; k != nil && (k.BacklogDrops > 0 || k.ListenOverflows > 0) {
			fmt.Fprintf(w, "| distributed: the kernel meanwhile | dropped %d packets with a CPU's backlog full (net.core.netdev_max_backlog), "+
				"turned away %d connections with a listen queue full, retransmitted %d TCP segments |\n", k.BacklogDrops, k.ListenOverflows, k.Retransmits)
		}
	}
	for _, n := range r.Notes {
		if name, why, ok := strings.Cut(n, ": not measured: "); ok {
			fmt.Fprintf(w, "| %s | not measured: %s |\n", name, why)
		}
	}
}

// bestWithin is the delivery run, of any protocol, with the most verified
// deliveries a second whose e2e p99 is at most p99Ms and whose every
// delivery was verified: none lost, duplicated or corrupted.
func bestWithin(r *benchResult, p99Ms float64) *deliveryResult {
	var best *deliveryResult
	consider := func(ds []*deliveryResult) {
		for _, d := range ds {
			clean := d.Lost == 0 && d.Duplicates == 0 && d.Corrupted == 0 && d.Integrity == 1
			if clean && d.P99Ms > 0 && d.P99Ms <= p99Ms && (best == nil || d.DeliveriesPerSec > best.DeliveriesPerSec) {
				best = d
			}
		}
	}
	consider(r.Delivery)
	for _, p := range slices.Sorted(maps.Keys(r.Protocols)) {
		consider(r.Protocols[p].Delivery)
	}
	return best
}
