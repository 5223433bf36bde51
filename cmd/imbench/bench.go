package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/imbench/imbench/internal/runid"
)

// `imbench bench` measures the generator, each figure against a baseline
// taken in the same run on the same machine (absolute numbers on a shared
// machine drift; ratios hold):
//
//	density      one generator process (imbench run) holding as many users as
//	             its file limit allows
//	baseline     as many users held by the seed's own load program's way of
//	             holding them (OpenIM's msgtest: a gorilla/websocket connection,
//	             a reader and a heartbeat goroutine per user), one tool at a
//	             time, each against a fresh target of the same kind: RSS and
//	             CPU per user of each and their ratio (bench_baseline.go)
//	delivery     generator CPU per verified delivery, each at a fixed message
//	             rate (light and heavy: the cost per delivery falls as more
//	             of them share a wake-up)
//	distributed  100,000 users over execution-segment processes and a target
//	             spread over a core and gateway processes
//	flat         generator RSS, open files, threads and goroutines over a long run at a
//	             fixed rate against its own earlier samples (the slope of RSS
//	             per hour), and the run's latencies
//
// Everything runs on loopback against reference targets the bench starts.

type benchResult struct {
	StartedAt       time.Time          `json:"started_at"`
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
	Protocols   map[string]*protocolBench `json:"other_protocols,omitempty"`
	Distributed *distributedResult        `json:"distributed,omitempty"`
	Flat        *flatResult               `json:"flat,omitempty"`
	Notes       []string                  `json:"notes,omitempty"`
}

func cmdBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var (
		users  = fs.Int("users", 0, "users for the single-process runs (0: the file limit allows)")
		total  = fs.Int("total", 100000, "users of the distributed run")
		procs  = fs.Int("procs", 6, "generator processes (execution segments) of the distributed run")
		hold   = fs.Duration("hold", 60*time.Second, "how long users are held online (above the 30 s read deadline)")
		only   = fs.String("only", "density,baseline,delivery,distributed,flat", "which measurements (stock: the old name of baseline)")
		out    = fs.String("out", "results/bench", "where the JSON goes")
		rates  = fs.String("rates", "50,400", "messages per second of the delivery runs, one run each")
		flat   = fs.Duration("flat", 10*time.Minute, "how long the flat run sends (IM_DURATION)")
		fRate  = fs.Float64("flat-rate", 400, "messages per second of the flat run's open classes (IM_RATE)")
		fScen  = fs.String("flat-scenario", "openim/mix", "the flat run's workload: openim/mix or wukongim/stability")
		protos = fs.String("protocols", "wukongim,wildfire", "other protocols whose density and delivery are measured too (empty: none)")
	)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	var rateList []float64
	for _, r := range strings.Split(*rates, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(r), 64)
		if err != nil || v <= 0 || v > 5000 {
			return badInput("rate %q is not a message rate in (0, 5000] per second", r)
		}
		rateList = append(rateList, v)
	}
	if *hold < 35*time.Second {
		return badInput("hold %s is too short to prove heartbeats beat the 30 s read deadline", *hold)
	}
	if *flat < 2*time.Minute || *flat > 30*24*time.Hour {
		return badInput("flat %s must be within 2m..720h: the fit leaves out a warm-up of at least 60 s", *flat)
	}
	if *fRate <= 0 || *fRate > 5000 {
		return badInput("flat-rate %g is not a message rate in (0, 5000] per second", *fRate)
	}
	if _, ok := flatScenarios[*fScen]; !ok {
		return badInput("flat-scenario %q: want openim/mix or wukongim/stability", *fScen)
	}
	want := map[string]bool{}
	for _, w := range strings.Split(*only, ",") {
		switch w = strings.TrimSpace(w); w {
		case "stock": // its name while the baseline was stock k6
			want["baseline"] = true
		case "density", "baseline", "delivery", "distributed", "flat":
			want[w] = true
		case "":
		default:
			return badInput("unknown measurement %q (density, baseline, delivery, distributed, flat)", w)
		}
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	lim.Cur = lim.Max // children inherit the raised soft limit
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("raising the open-files limit: %w", err)
	}
	if *users == 0 {
		*users = int(lim.Max) - 500 // room for the process's own files
	}
	for _, b := range []string{"imbench", "imbench-target"} {
		if _, err := os.Stat(filepath.Join(toolsBin, b)); err != nil {
			return fmt.Errorf("%s is not built: run make bench", filepath.Join(toolsBin, b))
		}
	}
	os.Setenv("IMBENCH_NO_OBSERVE", "1") // bench runs report to nobody: the stack's cost is not theirs
	res := &benchResult{StartedAt: time.Now().UTC(), Machine: machineInfo(), Limits: limitsInfo(lim)}
	fmt.Printf("imbench bench: open files %d (hard limit), ephemeral ports %s\n", lim.Max, res.Limits["net.ipv4.ip_local_port_range"])
	b := &bench{hold: *hold, resultsDir: filepath.Join(*out, "runs")}
	var err error
	if want["density"] {
		if res.Density, err = b.holdOurs(*users, "openim"); err != nil {
			return fmt.Errorf("density: %w", err)
		}
		res.RSSPerUserBytes = res.Density.RSSPerUserBytes
	}
	if want["baseline"] {
		if res.Baseline, err = b.holdBaseline(*users); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
	}
	res.Ratio = baselineRatio(res.Density, res.Baseline)
	if want["delivery"] {
		for _, r := range rateList {
			d, err := b.delivery(r, "openim")
			if err != nil {
				return fmt.Errorf("delivery at %g msg/s: %w", r, err)
			}
			res.Delivery = append(res.Delivery, d)
		}
	}
	for _, p := range strings.Split(*protos, ",") {
		if p = strings.TrimSpace(p); p == "" || (!want["density"] && !want["delivery"]) {
			continue
		}
		pb, err := b.protocol(p, *users, rateList, want)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if res.Protocols == nil {
			res.Protocols = map[string]*protocolBench{}
		}
		res.Protocols[p] = pb
	}
	if want["flat"] {
		if res.Flat, err = b.flat(*fScen, *flat, *fRate); err != nil {
			return fmt.Errorf("flat: %w", err)
		}
	}
	if want["distributed"] {
		if res.Distributed, err = b.distributed(*total, *procs); err != nil {
			return fmt.Errorf("distributed: %w", err)
		}
		res.UsersHeld = res.Distributed.UsersHeld
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(*out, res.StartedAt.Format("20060102-150405")+".json")
	raw, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
		return err
	}
	printBench(res)
	fmt.Println("imbench bench: wrote", path)
	return nil
}

// protocolBench is density and delivery over one more protocol.
type protocolBench struct {
	Density  *holdResult       `json:"density,omitempty"`
	Delivery []*deliveryResult `json:"delivery,omitempty"`
}

func (b *bench) protocol(p string, users int, rates []float64, want map[string]bool) (*protocolBench, error) {
	if p == "openim" {
		return nil, badInput("openim is measured already; -protocols names the others")
	}
	out := &protocolBench{}
	var err error
	if want["density"] {
		if out.Density, err = b.holdOurs(users, p); err != nil {
			return nil, fmt.Errorf("density: %w", err)
		}
	}
	if want["delivery"] {
		for _, r := range rates {
			d, err := b.delivery(r, p)
			if err != nil {
				return nil, fmt.Errorf("delivery at %g msg/s: %w", r, err)
			}
			out.Delivery = append(out.Delivery, d)
		}
	}
	return out, nil
}

type bench struct {
	hold       time.Duration
	resultsDir string
}

// benchRun is one generator run the bench started: `imbench run` as a
// process of its own, so that what it costs is measured apart from the
// bench (and from the target).
type benchRun struct {
	id   string
	cmd  *exec.Cmd
	done chan error // its exit, sent once
}

// pids are the run's processes: the `imbench run` the bench started and
// every imbench process of the same run (segment children it launched, or
// any naming the run with -run-id).
func (r *benchRun) pids() []int { return runProcesses(r.cmd.Process.Pid, r.id) }

// runScenario runs one scenario with the generator, `imbench run`, against
// bt in the background. protocol "" is the scenario's own (see parseRun).
func (b *bench) runScenario(bt *benchTarget, scenario, protocol string, segments int, env map[string]string) (*benchRun, error) {
	r := &benchRun{id: "bench-" + runid.New(), done: make(chan error, 1)}
	args := []string{"run", "-scenario", scenario, "-target", "reference", "-run-id", r.id, "-q",
		"-results", b.resultsDir, "-segments", strconv.Itoa(segments)}
	if protocol != "" {
		args = append(args, "-protocol", protocol)
	}
	r.cmd = exec.Command(filepath.Join(toolsBin, "imbench"), args...)
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
		"IM_SECRET="+bt.secret)
	for _, k := range slices.Sorted(maps.Keys(env)) {
		r.cmd.Env = append(r.cmd.Env, k+"="+env[k])
	}
	r.cmd.Stdout, r.cmd.Stderr = os.Stdout, os.Stderr
	if err := r.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		err := r.cmd.Wait()
		if err != nil {
			err = fmt.Errorf("imbench run %s (%s): %w", r.id, scenario, err)
		}
		r.done <- err
	}()
	return r, nil
}

func printBench(r *benchResult) {
	fmt.Println()
	fmt.Println("| measurement | figure |")
	fmt.Println("|---|---|")
	density := func(proto string, d *holdResult) {
		fmt.Printf("| one imbench run process, %s | %d users held, %.0f B RSS per user, %.4f CPU s per 1,000 users per s |\n",
			proto, d.UsersHeld, d.RSSPerUserBytes, d.CPUPer1000UsersPerSec)
	}
	delivery := func(d *deliveryResult) {
		fmt.Printf("| generator CPU per verified delivery, %s | %.2f µs (%d deliveries at %.0f msg/s × %d members) |\n",
			d.Protocol, d.CPUMicrosPerDeliv, d.Deliveries, d.Rate, d.Users-1)
	}
	if d := r.Density; d != nil {
		density("openim", d)
	}
	if s := r.Baseline; s != nil {
		fmt.Printf("| baseline: msgtest's way, one process | %d users held, %.0f B RSS per user, %.4f CPU s per 1,000 users per s |\n",
			s.UsersHeld, s.RSSPerUserBytes, s.CPUPer1000UsersPerSec)
	}
	if r.Ratio != nil {
		fmt.Printf("| baseline ÷ imbench | %.1f× memory per user, %.1f× CPU per user |\n", r.Ratio["rss_per_user"], r.Ratio["cpu_per_user"])
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
	if f := r.Flat; f != nil {
		const mib = 1 << 20
		fmt.Printf("| generator RSS over %s at %g msg/s | slope %+.2f %%/h (%+.2f MiB/h, %.1f %% of the %.1f MiB/h per-sample Trends would add), mean %.1f MiB; "+
			"e2e p50/p99 %.1f/%.1f ms over %d deliveries, %d lost; open files %d→%d, threads %d→%d, goroutines %d→%d (max %d, %+.1f/h) |\n",
			shortDuration(time.Duration(f.SendingSeconds*float64(time.Second))), f.Rate,
			f.RSSSlopePercentPerHour, f.RSSSlopeBytesPerHour/mib, f.SlopeOverTrends*100, f.TrendBytesPerHour/mib, f.RSSMeanBytes/mib,
			f.E2E.P50, f.E2E.P99, f.E2E.Count, f.Lost, f.FDsFirst, f.FDsLast, f.ThreadsFirst, f.ThreadsLast,
			f.GoroutinesFirst, f.GoroutinesLast, f.GoroutinesMax, f.GoroutineSlopePerHour)
	}
	if d := r.Distributed; d != nil {
		fmt.Printf("| distributed | %d users held at once by %d generator processes, %d heartbeat timeouts, %d disconnects |\n",
			d.UsersHeld, d.Processes, d.HeartbeatTimeouts, d.Disconnects)
	}
}
