package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/k6/im/openim"
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
	Distributed     *distributedResult `json:"distributed,omitempty"`
	Notes           []string           `json:"notes,omitempty"`
}

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

type deliveryResult struct {
	Users             int     `json:"users"`
	Rate              float64 `json:"messages_per_second"`
	Deliveries        int64   `json:"deliveries_measured"`
	CPUSeconds        float64 `json:"cpu_seconds"`
	CPUMicrosPerDeliv float64 `json:"cpu_us_per_verified_delivery"`
	Lost              int64   `json:"lost"`
	Integrity         float64 `json:"integrity"`
}

type distributedResult struct {
	UsersPlanned      int     `json:"users_planned"`
	UsersHeld         int64   `json:"users_held"`
	Processes         int     `json:"k6_processes"`
	Gateways          int     `json:"target_gateways"`
	GeneratorRSSBytes int64   `json:"generator_rss_bytes"`
	RSSPerUserBytes   float64 `json:"generator_rss_per_user_bytes"`
	HeartbeatTimeouts int64   `json:"heartbeat_timeouts"`
	Disconnects       int64   `json:"disconnects"`
	SecondsToOnline   float64 `json:"seconds_to_online"`
}

func cmdBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var (
		users = fs.Int("users", 0, "users for the single-process runs (0: the file limit allows)")
		total = fs.Int("total", 100000, "users of the distributed run")
		procs = fs.Int("procs", 6, "k6 processes of the distributed run")
		hold  = fs.Duration("hold", 60*time.Second, "how long users are held online (above the 30 s read deadline)")
		only  = fs.String("only", "density,stock,delivery,distributed", "which measurements")
		out   = fs.String("out", "results/bench", "where the JSON goes")
		rates = fs.String("rates", "50,400", "messages per second of the delivery runs, one run each")
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
	want := map[string]bool{}
	for _, w := range strings.Split(*only, ",") {
		switch w = strings.TrimSpace(w); w {
		case "density", "stock", "delivery", "distributed":
			want[w] = true
		case "":
		default:
			return badInput("unknown measurement %q (density, stock, delivery, distributed)", w)
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
	for _, b := range []string{"k6", "k6-stock", "imbench-target"} {
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
		if res.Density, err = b.holdOurs(*users); err != nil {
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
			d, err := b.delivery(r)
			if err != nil {
				return fmt.Errorf("delivery at %g msg/s: %w", r, err)
			}
			res.Delivery = append(res.Delivery, d)
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

type bench struct {
	hold       time.Duration
	resultsDir string
}

// benchTarget is a reference target started by the bench: one process, or a
// core and gateways.
type benchTarget struct {
	api     string
	ws      []string
	metrics []string // of every process
	core    string   // the process that counts online users
	procs   []*exec.Cmd
	secret  string
}

func localAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func (bt *benchTarget) start(args ...string) error {
	cmd := exec.Command(filepath.Join(toolsBin, "imbench-target"), args...)
	cmd.Env = append(os.Environ(), "IMBENCH_TARGET_SECRET="+bt.secret)
	if err := cmd.Start(); err != nil {
		return err
	}
	bt.procs = append(bt.procs, cmd)
	return nil
}

func (bt *benchTarget) stop() {
	for _, p := range bt.procs {
		p.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range bt.procs {
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.Process.Kill()
		}
	}
}

// startTargets starts one all-in-one target (gateways 0) or a core and n
// gateways.
func startTargets(gateways int) (*benchTarget, error) {
	bt := &benchTarget{api: localAddr(), secret: fmt.Sprintf("bench-%d", time.Now().UnixNano())}
	met := localAddr()
	bt.metrics, bt.core = []string{met}, met
	args := []string{"-api", bt.api, "-metrics", met, "-max-conns", "1000000"}
	link := localAddr()
	if gateways == 0 {
		ws := localAddr()
		bt.ws = []string{"ws://" + ws}
		args = append(args, "-ws", ws)
	} else {
		args = append(args, "-role", "core", "-cluster", link)
	}
	if err := bt.start(args...); err != nil {
		return nil, err
	}
	if err := waitHealthy("http://"+bt.api+"/healthz", 30*time.Second); err != nil {
		bt.stop()
		return nil, err
	}
	for range gateways {
		ws, gm := localAddr(), localAddr()
		bt.ws = append(bt.ws, "ws://"+ws)
		bt.metrics = append(bt.metrics, gm)
		if err := bt.start("-role", "gateway", "-ws", ws, "-metrics", gm, "-cluster", link); err != nil {
			bt.stop()
			return nil, err
		}
	}
	for _, m := range bt.metrics {
		if err := waitHealthy("http://"+m+"/metrics", 30*time.Second); err != nil {
			bt.stop()
			return nil, err
		}
	}
	return bt, nil
}

func waitHealthy(url string, limit time.Duration) error {
	if !waitEvery(100*time.Millisecond, limit, func() bool { return healthy(url) }) {
		return fmt.Errorf("%s did not answer within %s", url, limit)
	}
	return nil
}

// metric sums a series family (optionally with a label selector prefix,
// e.g. `x{result="ok"}`) over the given /metrics endpoints.
func metric(endpoints []string, name string) float64 { return metrics(endpoints, name)[0] }

// metrics is metric for several families, from one scrape of each endpoint.
func metrics(endpoints []string, names ...string) []float64 {
	sums := make([]float64, len(names))
	for _, ep := range endpoints {
		resp, err := http.Get("http://" + ep + "/metrics")
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			for i, name := range names {
				if strings.HasPrefix(line, name+" ") || strings.HasPrefix(line, name+"{") {
					f := strings.Fields(line)
					v, _ := strconv.ParseFloat(f[len(f)-1], 64)
					sums[i] += v
				}
			}
		}
		resp.Body.Close()
	}
	return sums
}

// waitFor polls until cond holds, or the limit passes.
func waitFor(limit time.Duration, cond func() bool) bool {
	return waitEvery(500*time.Millisecond, limit, cond)
}

// waitEvery checks cond every interval until it holds or limit has passed.
func waitEvery(interval, limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(interval)
	}
	return false
}

// runScenario runs one scenario with imbench's k6 against bt in the
// background; the returned channel yields its exit and results folder.
func (b *bench) runScenario(bt *benchTarget, scenario string, segments int, env map[string]string) (string, chan error, error) {
	// Where the target is: what parseRun takes from the environment, the
	// same for every measurement.
	os.Setenv("IM_API_URL", "http://"+bt.api)
	os.Setenv("IM_WS_URL", strings.Join(bt.ws, ","))
	os.Setenv("IM_SECRET", bt.secret)
	rc, err := parseRun([]string{"-scenario", scenario, "-results", b.resultsDir, "-segments", strconv.Itoa(segments)})
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

func (b *bench) holdOurs(users int) (*holdResult, error) {
	fmt.Printf("imbench bench: density: one imbench k6 process holding %d users for %s\n", users, b.hold)
	bt, err := startTargets(0)
	if err != nil {
		return nil, err
	}
	defer bt.stop()
	res := &holdResult{Tool: "imbench k6 (k6/x/im)", UsersPlanned: users}
	began := time.Now()
	runID, done, err := b.runScenario(bt, "openim/hold", 1, map[string]string{"IM_USERS": strconv.Itoa(users),
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

// holdStock registers users and fetches their tokens (stock k6 has no
// OpenIM setup), then runs k6/bench/stock_hold.js with stock k6.
func (b *bench) holdStock(users int) (*holdResult, error) {
	fmt.Printf("imbench bench: stock: stock k6 v1.8.1 (k6/websockets, one VU per connection) holding %d users for %s\n", users, b.hold)
	bt, err := startTargets(0)
	if err != nil {
		return nil, err
	}
	defer bt.stop()
	tokens, err := registerForStock(bt, users)
	if err != nil {
		return nil, err
	}
	res := &holdResult{Tool: "stock k6 v1.8.1 (k6/websockets)", UsersPlanned: users}
	cmd := exec.Command(filepath.Join(toolsBin, "k6-stock"), "run", "--quiet", "--no-color", "--address=",
		"--no-thresholds", "--summary-mode=disabled", filepath.Join("k6", "bench", "stock_hold.js"))
	cmd.Env = append(os.Environ(), "IM_TOKENS="+tokens, "IM_WS_URL="+bt.ws[0], "IM_PING_MS=20000",
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

func registerForStock(bt *benchTarget, users int) (string, error) {
	api := &openim.API{Base: "http://" + bt.api, Secret: bt.secret, AdminID: "imAdmin", HTTP: &http.Client{Timeout: 30 * time.Second}}
	ctx := context.Background()
	admin, err := api.AdminToken(ctx)
	if err != nil {
		return "", err
	}
	type entry struct {
		ID    string `json:"id"`
		Token string `json:"token"`
	}
	list := make([]entry, users)
	ids := make([]string, users)
	for i := range list {
		ids[i] = fmt.Sprintf("stock_u%d", i)
		list[i].ID = ids[i]
	}
	if _, err := api.RegisterUsers(ctx, admin, ids); err != nil {
		return "", err
	}
	var g errgroup.Group
	g.SetLimit(16)
	var mu sync.Mutex
	for i := range list {
		g.Go(func() error {
			tok, err := api.UserToken(ctx, admin, list[i].ID, 2)
			mu.Lock()
			list[i].Token = tok
			mu.Unlock()
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return "", err
	}
	raw, _ := json.Marshal(list)
	f, err := os.CreateTemp("", "imbench-stock-*.json")
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.Write(raw)
	return f.Name(), err
}

// delivery measures generator CPU per verified delivery: a group of 200,
// all online, at a fixed rate, sampled over 30 s of steady sending.
func (b *bench) delivery(rate float64) (*deliveryResult, error) {
	const users = 200
	msgs := int(rate*45) / users // about 45 s of sending
	fmt.Printf("imbench bench: delivery: %d users in one group, %.0f msg/s, every message verified at %d members\n", users, rate, users-1)
	bt, err := startTargets(0)
	if err != nil {
		return nil, err
	}
	defer bt.stop()
	runID, done, err := b.runScenario(bt, "openim/fanout", 1, map[string]string{"IM_USERS": strconv.Itoa(users),
		"IM_MESSAGES": strconv.Itoa(msgs), "IM_RATE": strconv.FormatFloat(rate, 'f', -1, 64), "IM_SCALE": "1"})
	if err != nil {
		return nil, err
	}
	res := &deliveryResult{Users: users, Rate: rate}
	const sentName, pushedName = "group_chat_msg_process_success_total", "imbench_target_pushes_total"
	sent := func() float64 { return metric(bt.metrics, sentName) }
	if !waitFor(5*time.Minute, func() bool { return sent() > 0 }) {
		<-done
		return nil, errors.New("no message was sent")
	}
	time.Sleep(5 * time.Second)
	pids := pidsWith("k6", "run_id="+runID)
	s1, err := sampleAll(pids)
	if err != nil {
		return nil, err
	}
	c1 := metrics(bt.metrics, pushedName, sentName)
	time.Sleep(30 * time.Second)
	s2, err := sampleAll(pids)
	if err != nil {
		return nil, err
	}
	c2 := metrics(bt.metrics, pushedName, sentName)
	res.Deliveries = int64((c2[0] - c1[0]) - (c2[1] - c1[1])) // every push but the sender's own copy
	res.CPUSeconds = round6(s2.cpu - s1.cpu)
	if res.Deliveries > 0 {
		res.CPUMicrosPerDeliv = round2(res.CPUSeconds * 1e6 / float64(res.Deliveries))
	}
	if err := <-done; err != nil {
		return res, err
	}
	if sum, err := summary.Load(filepath.Join(b.resultsDir, runID, "summary.json")); err == nil {
		res.Lost, res.Integrity = sum.Deliveries.Lost, sum.Integrity
	}
	return res, nil
}

// distributed holds total users at once: procs k6 processes on execution
// segments, against a core and enough gateways that none holds more than
// 15,000 connections.
func (b *bench) distributed(total, procs int) (*distributedResult, error) {
	gateways := (total + 14999) / 15000
	fmt.Printf("imbench bench: distributed: %d users over %d k6 processes and %d target gateways\n", total, procs, gateways)
	bt, err := startTargets(gateways)
	if err != nil {
		return nil, err
	}
	defer bt.stop()
	res := &distributedResult{UsersPlanned: total, Processes: procs, Gateways: gateways}
	began := time.Now()
	runID, done, err := b.runScenario(bt, "openim/hold", procs, map[string]string{"IM_USERS": strconv.Itoa(total),
		"IM_HOLD": b.hold.String(), "IM_SCALE": "1", "IM_LOGIN_WINDOW": "150s", "IM_VUS": strconv.Itoa(procs)})
	if err != nil {
		return nil, err
	}
	online := func() int64 { return int64(metric([]string{bt.core}, "online_user_num")) }
	var peak int64
	var rss int64
	finished := false
	for !finished {
		select {
		case err = <-done:
			finished = true
		case <-time.After(2 * time.Second):
			n := online()
			if n > peak {
				peak = n
				if res.SecondsToOnline == 0 && int(n) >= total {
					res.SecondsToOnline = round2(time.Since(began).Seconds())
				}
				if s, err := sampleAll(pidsWith("k6", "run_id="+runID)); err == nil {
					rss = max(rss, s.rss)
				}
			}
		}
	}
	res.UsersHeld = peak
	res.GeneratorRSSBytes = rss
	if peak > 0 {
		res.RSSPerUserBytes = round2(float64(rss) / float64(peak))
	}
	res.HeartbeatTimeouts = int64(metric(bt.metrics, "imbench_target_heartbeat_timeouts_total"))
	if sum, rerr := summary.Load(filepath.Join(b.resultsDir, runID, "summary.json")); rerr == nil {
		res.Disconnects = sum.Users.Disconnects
	}
	return res, err
}

func machineInfo() map[string]any {
	m := map[string]any{"cpus": runtime.NumCPU()}
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kb, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
				m["memory_bytes"] = kb * 1024
			}
		}
	}
	if raw, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m["kernel"] = strings.TrimSpace(string(raw))
	}
	return m
}

func limitsInfo(lim syscall.Rlimit) map[string]string {
	out := map[string]string{"nofile_soft": strconv.FormatUint(lim.Cur, 10), "nofile_hard": strconv.FormatUint(lim.Max, 10)}
	for _, k := range []string{"net.ipv4.ip_local_port_range", "net.core.somaxconn", "net.ipv4.tcp_tw_reuse", "fs.nr_open", "fs.file-max"} {
		if raw, err := os.ReadFile("/proc/sys/" + strings.ReplaceAll(k, ".", "/")); err == nil {
			out[k] = strings.Join(strings.Fields(string(raw)), " ")
		}
	}
	return out
}

func printBench(r *benchResult) {
	fmt.Println()
	fmt.Println("| measurement | figure |")
	fmt.Println("|---|---|")
	if d := r.Density; d != nil {
		fmt.Printf("| one imbench k6 process | %d users held, %.0f B RSS per user, %.4f CPU s per 1,000 users per s |\n",
			d.UsersHeld, d.RSSPerUserBytes, d.CPUPer1000UsersPerSec)
	}
	if s := r.Stock; s != nil {
		fmt.Printf("| one stock k6 process | %d users held, %.0f B RSS per user, %.4f CPU s per 1,000 users per s |\n",
			s.UsersHeld, s.RSSPerUserBytes, s.CPUPer1000UsersPerSec)
	}
	if r.Ratio != nil {
		fmt.Printf("| stock ÷ imbench | %.1f× memory per user, %.1f× CPU per user |\n", r.Ratio["rss_per_user"], r.Ratio["cpu_per_user"])
	}
	for _, d := range r.Delivery {
		fmt.Printf("| generator CPU per verified delivery | %.2f µs (%d deliveries at %.0f msg/s × %d members) |\n",
			d.CPUMicrosPerDeliv, d.Deliveries, d.Rate, d.Users-1)
	}
	if d := r.Distributed; d != nil {
		fmt.Printf("| distributed | %d users held at once by %d k6 processes, %d heartbeat timeouts, %d disconnects |\n",
			d.UsersHeld, d.Processes, d.HeartbeatTimeouts, d.Disconnects)
	}
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }
func round6(v float64) float64 { return float64(int64(v*1e6+0.5)) / 1e6 }
