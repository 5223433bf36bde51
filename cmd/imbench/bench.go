package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// `imbench bench` measures the generator, each figure against a baseline
// taken in the same run on the same machine (absolute numbers on a shared
// machine drift; ratios hold):
//
//	density      one k6 process holding as many users as its file limit allows
//	stock        stock k6 (k6/websockets, one VU per connection) holding as many
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
	Stock           *holdResult        `json:"stock,omitempty"`
	Ratio           map[string]float64 `json:"stock_over_imbench,omitempty"`
	Delivery        []*deliveryResult  `json:"delivery,omitempty"`
	// The same density and delivery measurements over the other protocols
	// the reference target speaks (those above are OpenIM's, which the
	// stock baseline speaks too).
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
		procs  = fs.Int("procs", 6, "k6 processes of the distributed run")
		hold   = fs.Duration("hold", 60*time.Second, "how long users are held online (above the 30 s read deadline)")
		only   = fs.String("only", "density,stock,delivery,distributed,flat", "which measurements")
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
		case "density", "stock", "delivery", "distributed", "flat":
			want[w] = true
		case "":
		default:
			return badInput("unknown measurement %q (density, stock, delivery, distributed, flat)", w)
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
	bins := []string{"k6", "imbench-target"}
	if want["stock"] {
		bins = append(bins, "k6-stock")
	}
	for _, b := range bins {
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
	if want["stock"] {
		if res.Stock, err = b.holdStock(*users); err != nil {
			return fmt.Errorf("stock k6: %w", err)
		}
	}
	if res.Density != nil && res.Stock != nil && res.Density.RSSPerUserBytes > 0 {
		res.Ratio = map[string]float64{
			"rss_per_user": round2(res.Stock.RSSPerUserBytes / res.Density.RSSPerUserBytes),
		}
		if res.Density.CPUPer1000UsersPerSec > 0 {
			res.Ratio["cpu_per_user"] = round2(res.Stock.CPUPer1000UsersPerSec / res.Density.CPUPer1000UsersPerSec)
		}
	}
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

// runScenario runs one scenario with imbench's k6 against bt in the
// background; the returned channel yields its exit and results folder.
// protocol "" is the scenario's own (see parseRun).
func (b *bench) runScenario(bt *benchTarget, scenario, protocol string, segments int, env map[string]string) (string, chan error, error) {
	// Where the target is: what parseRun takes from the environment, the
	// same for every measurement.
	os.Setenv("IM_API_URL", "http://"+bt.api)
	os.Setenv("IM_WS_URL", strings.Join(bt.ws, ","))
	os.Setenv("IM_WUKONGIM_API_URL", "http://"+bt.wkAPI)
	os.Setenv("IM_WUKONGIM_TCP_URL", strings.Join(bt.wkTCP, ","))
	os.Setenv("IM_WUKONGIM_WS_URL", strings.Join(bt.wkWS, ","))
	os.Setenv("IM_WILDFIRE_ADMIN_URL", "http://"+bt.wfAdmin)
	os.Setenv("IM_WILDFIRE_MQTT_URL", "tcp://"+bt.wfMQTT)
	os.Setenv("IM_SECRET", bt.secret)
	rc, err := parseRun([]string{"-scenario", scenario, "-results", b.resultsDir, "-segments", strconv.Itoa(segments), "-protocol", protocol})
	if err != nil {
		return "", nil, err
	}
	// This measurement's knobs go to its k6 alone, not to the ones after it.
	for k, v := range env {
		rc.env = append(rc.env, k+"="+v)
	}
	if err := preflight(rc); err != nil {
		return "", nil, err
	}
	done := make(chan error, 1)
	go func() {
		code, err := execute(rc)
		if err == nil && code != 0 {
			err = fmt.Errorf("%s exited %d", scenario, code)
		}
		done <- err
	}()
	return rc.runID, done, nil
}

func printBench(r *benchResult) {
	fmt.Println()
	fmt.Println("| measurement | figure |")
	fmt.Println("|---|---|")
	density := func(proto string, d *holdResult) {
		fmt.Printf("| one imbench k6 process, %s | %d users held, %.0f B RSS per user, %.4f CPU s per 1,000 users per s |\n",
			proto, d.UsersHeld, d.RSSPerUserBytes, d.CPUPer1000UsersPerSec)
	}
	delivery := func(d *deliveryResult) {
		fmt.Printf("| generator CPU per verified delivery, %s | %.2f µs (%d deliveries at %.0f msg/s × %d members) |\n",
			d.Protocol, d.CPUMicrosPerDeliv, d.Deliveries, d.Rate, d.Users-1)
	}
	if d := r.Density; d != nil {
		density("openim", d)
	}
	if s := r.Stock; s != nil {
		fmt.Printf("| one stock k6 process | %d users held, %.0f B RSS per user, %.4f CPU s per 1,000 users per s |\n",
			s.UsersHeld, s.RSSPerUserBytes, s.CPUPer1000UsersPerSec)
	}
	if r.Ratio != nil {
		fmt.Printf("| stock ÷ imbench | %.1f× memory per user, %.1f× CPU per user |\n", r.Ratio["rss_per_user"], r.Ratio["cpu_per_user"])
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
		fmt.Printf("| distributed | %d users held at once by %d k6 processes, %d heartbeat timeouts, %d disconnects |\n",
			d.UsersHeld, d.Processes, d.HeartbeatTimeouts, d.Disconnects)
	}
}
