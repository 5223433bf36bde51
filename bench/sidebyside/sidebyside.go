// Package sidebyside runs one workload under two load tools, each a
// command, alternating, round after round, each run on a fresh server (a
// before command), and compares what the server and each tool spent per
// delivery: the server's own counter says how many deliveries there were,
// /proc how much CPU the server's processes and the tool's spent. The
// figures are medians over the rounds; the spread is each round's ratio.
package sidebyside

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Tool is a load tool: a shell command that runs the workload once and
// exits.
type Tool struct {
	Name    string `json:"name"`
	Command string `json:"command"`
}

// Config is a side-by-side measurement.
type Config struct {
	Tools  [2]Tool `json:"tools"` // ratios are the first's ÷ the second's
	Rounds int     `json:"rounds"`
	// Before starts a fresh server; After stops it (shell commands, each run).
	Before string `json:"before"`
	After  string `json:"after"`
	// Server prints the PIDs of the server's processes, once Before has run.
	Server string `json:"server"`
	// CountURL serves the server's metrics in Prometheus text; CountMetric
	// is the counter of deliveries in it (every series summed).
	CountURL    string `json:"count_url"`
	CountMetric string `json:"count_metric"`
	// Also are more counters on the same page (e.g. the server's packets
	// of each kind), each reported per delivery in the send window: what
	// a tool makes the server do, counted rather than timed.
	Also []string `json:"also,omitempty"`
	// ServerCPUs and ToolCPUs pin each to a CPU list ("0", "1-3"; "": not pinned).
	ServerCPUs string `json:"server_cpus"`
	ToolCPUs   string `json:"tool_cpus"`
	// Timeout bounds each command; Every is the sampling period.
	Timeout time.Duration `json:"timeout_ns"`
	Every   time.Duration `json:"sample_every_ns"`
}

// Run is one tool's run in one round.
type Run struct {
	Tool  string    `json:"tool"`
	Round int       `json:"round"`
	At    time.Time `json:"at"`
	// Seconds is the tool's run, Window the span in which the server's
	// delivery counter rose (from the sample before its first rise to the
	// first after its last).
	Seconds          float64 `json:"seconds"`
	WindowSeconds    float64 `json:"window_seconds"`
	Deliveries       float64 `json:"deliveries"`
	WindowDeliveries float64 `json:"window_deliveries"`
	// CPU seconds: the server's over the run and in the window; the
	// tool's (its process and every descendant it waited for) over the
	// run, of it in user space, and, sampled, in the window.
	ServerCPU       float64 `json:"server_cpu_seconds"`
	ServerCPUWindow float64 `json:"server_cpu_window_seconds"`
	ToolCPU         float64 `json:"tool_cpu_seconds"`
	ToolUserCPU     float64 `json:"tool_user_cpu_seconds"`
	ToolCPUWindow   float64 `json:"tool_cpu_window_seconds"`
	ToolMaxRSS      int64   `json:"tool_max_rss_bytes"`
	// The server's read and write system calls in the window (/proc/PID/io;
	// absent where that is not readable), and the Also counters' rises.
	ServerReadsWindow  float64            `json:"server_reads_window,omitempty"`
	ServerWritesWindow float64            `json:"server_writes_window,omitempty"`
	AlsoWindow         map[string]float64 `json:"also_window,omitempty"`
	// Load is the machine's 1-minute load average at the start and the
	// most it reached during the run.
	LoadStart float64 `json:"load_start"`
	LoadMax   float64 `json:"load_max"`
}

// Figures are a run's costs, µs of CPU per delivery (RSS in MiB).
func (r Run) Figures() map[string]float64 {
	per := func(cpu, n float64) float64 {
		if n <= 0 {
			return 0
		}
		return cpu / n * 1e6
	}
	count := func(v, n float64) float64 {
		if n <= 0 {
			return 0
		}
		return v / n
	}
	f := map[string]float64{
		FigServerWindow: per(r.ServerCPUWindow, r.WindowDeliveries),
		FigServerRun:    per(r.ServerCPU, r.Deliveries),
		FigToolRun:      per(r.ToolCPU, r.Deliveries),
		FigToolUser:     per(r.ToolUserCPU, r.Deliveries),
		FigToolWindow:   per(r.ToolCPUWindow, r.WindowDeliveries),
		FigToolRSS:      float64(r.ToolMaxRSS) / (1 << 20),
		FigDeliveries:   r.Deliveries,
		FigServerReads:  count(r.ServerReadsWindow, r.WindowDeliveries),
		FigServerWrites: count(r.ServerWritesWindow, r.WindowDeliveries),
	}
	for m, v := range r.AlsoWindow {
		f[AlsoFigure(m)] = count(v, r.WindowDeliveries)
	}
	return f
}

// AlsoFigure names an Also counter's figure.
func AlsoFigure(metric string) string { return metric + " per delivery, send window" }

// The figures compared, in the order they are reported.
const (
	FigServerWindow = "server CPU per delivery, send window (µs)"
	FigServerRun    = "server CPU per delivery, whole run (µs)"
	FigToolWindow   = "tool CPU per delivery, send window (µs)"
	FigToolRun      = "tool CPU per delivery, whole run (µs)"
	FigToolUser     = "tool user-space CPU per delivery (µs)"
	FigToolRSS      = "tool peak RSS (MiB)"
	FigDeliveries   = "deliveries (server's counter)"
	FigServerReads  = "server read system calls per delivery, send window"
	FigServerWrites = "server write system calls per delivery, send window"
)

// Figures lists the figures of a config in report order: the costs, then
// what the server was made to do, counted.
func (c Config) Figures() []string {
	return append([]string{FigServerWindow, FigServerRun, FigToolWindow, FigToolRun, FigToolUser, FigToolRSS, FigDeliveries},
		c.Counted()...)
}

// Counted lists the figures that count, per delivery, what the server
// was made to do.
func (c Config) Counted() []string {
	figs := []string{FigServerReads, FigServerWrites}
	for _, m := range c.Also {
		figs = append(figs, AlsoFigure(m))
	}
	return figs
}

// Ratio is one figure of the two tools: their medians over the rounds,
// the medians' ratio, and the least and most of the rounds' own ratios.
type Ratio struct {
	Figure string  `json:"figure"`
	First  float64 `json:"first_median"`
	Second float64 `json:"second_median"`
	Ratio  float64 `json:"ratio"`
	Low    float64 `json:"round_low"`
	High   float64 `json:"round_high"`
}

// Result is a whole measurement.
type Result struct {
	StartedAt time.Time `json:"started_at"`
	Commit    string    `json:"commit"`   // imbench's, as the command sets it
	Workload  string    `json:"workload"` // what the tools ran, in words (-workload)
	Config    Config    `json:"config"`
	Runs      []Run     `json:"runs"`
	Ratios    []Ratio   `json:"ratios"`
	LoadLow   float64   `json:"load_low"`
	LoadMax   float64   `json:"load_max"`
	CPUs      int       `json:"cpus"`
}

var metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)

// Check refuses a config that cannot run, before anything starts.
func (c *Config) Check() error {
	var errs []error
	for i, t := range c.Tools {
		if t.Name == "" || strings.TrimSpace(t.Command) == "" {
			errs = append(errs, fmt.Errorf("tool %d needs a name and a command (name=command)", i+1))
		}
	}
	if c.Tools[0].Name != "" && c.Tools[0].Name == c.Tools[1].Name {
		errs = append(errs, fmt.Errorf("the two tools are both named %q", c.Tools[0].Name))
	}
	if c.Rounds < 1 || c.Rounds > 100 {
		errs = append(errs, fmt.Errorf("rounds %d: want 1–100", c.Rounds))
	}
	if c.Server == "" {
		errs = append(errs, errors.New("-server (a command printing the server's PIDs) is required"))
	}
	if c.CountURL == "" || c.CountMetric == "" {
		errs = append(errs, errors.New("-count (the server's metrics URL and its delivery counter, URL#metric) is required"))
	}
	seen := map[string]bool{c.CountMetric: true}
	for _, m := range c.Also {
		if !metricName.MatchString(m) || seen[m] {
			errs = append(errs, fmt.Errorf("-also %q: want a metric name, once, other than -count's", m))
		}
		seen[m] = true
	}
	for _, cpus := range []string{c.ServerCPUs, c.ToolCPUs} {
		if cpus == "" {
			continue
		}
		if _, err := parseCPUs(cpus); err != nil {
			errs = append(errs, err)
		}
	}
	if c.ToolCPUs != "" {
		if _, err := exec.LookPath("taskset"); err != nil {
			errs = append(errs, errors.New("-tool-cpus needs taskset (util-linux) in PATH"))
		}
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Minute
	}
	if c.Every <= 0 {
		c.Every = 500 * time.Millisecond
	}
	return errors.Join(errs...)
}

// Measure runs every round: the tools alternate which goes first, so a
// server or machine that drifts over the series weighs on both alike.
// progress gets a line per run. On an error the result holds the runs that
// ended before it.
func Measure(ctx context.Context, c Config, progress io.Writer) (*Result, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	res := &Result{StartedAt: time.Now().UTC(), Config: c, CPUs: runtime.NumCPU(), LoadLow: -1}
	for round := 1; round <= c.Rounds; round++ {
		order := []int{0, 1}
		if round%2 == 0 {
			order = []int{1, 0}
		}
		for _, i := range order {
			r, err := measureOne(ctx, c, c.Tools[i], round)
			if err != nil {
				res.compare() // of the runs that ended, for a caller that keeps them
				return res, fmt.Errorf("round %d, %s: %w", round, c.Tools[i].Name, err)
			}
			res.Runs = append(res.Runs, r)
			f := r.Figures()
			fmt.Fprintf(progress, "round %d %-10s %8.0f deliveries, server %.1f µs each in the window (%.1f whole run), tool %.1f µs (user %.1f), load %.2f–%.2f\n",
				round, r.Tool, r.Deliveries, f[FigServerWindow], f[FigServerRun], f[FigToolRun], f[FigToolUser], r.LoadStart, r.LoadMax)
		}
	}
	res.compare()
	return res, nil
}

func (res *Result) compare() {
	res.Ratios = nil
	byTool := [2][]Run{}
	for _, r := range res.Runs {
		for i, t := range res.Config.Tools {
			if r.Tool == t.Name {
				byTool[i] = append(byTool[i], r)
			}
		}
		if res.LoadLow < 0 || r.LoadStart < res.LoadLow {
			res.LoadLow = r.LoadStart
		}
		res.LoadMax = max(res.LoadMax, r.LoadMax)
	}
	for _, fig := range res.Config.Figures() {
		var a, b, rounds []float64
		every := true // the second tool's figure is above 0 in every round, so each round has a ratio
		for i := range min(len(byTool[0]), len(byTool[1])) {
			x, y := byTool[0][i].Figures()[fig], byTool[1][i].Figures()[fig]
			a, b = append(a, x), append(b, y)
			if every = every && y > 0; every {
				rounds = append(rounds, x/y)
			}
		}
		if !every {
			rounds = nil
		}
		r := Ratio{Figure: fig, First: median(a), Second: median(b)}
		if r.Second > 0 {
			r.Ratio = r.First / r.Second
		}
		if len(rounds) > 0 {
			r.Low, r.High = slices.Min(rounds), slices.Max(rounds)
		}
		res.Ratios = append(res.Ratios, r)
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// shell runs a command to its end within the config's timeout. Its
// output goes to a file, not a pipe: a server it leaves running in the
// background would hold a pipe open.
func shell(ctx context.Context, c Config, what, command string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	out, err := os.CreateTemp("", "side-by-side-*.out")
	if err != nil {
		return "", err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s (%s): %w", what, command, err)
	}
	raw, err := os.ReadFile(out.Name())
	return string(raw), err
}

func serverPIDs(ctx context.Context, c Config) ([]int, error) {
	out, err := shell(ctx, c, "-server", c.Server)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(out) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 1 {
			return nil, fmt.Errorf("-server printed %q: want PIDs", strings.TrimSpace(out))
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		return nil, fmt.Errorf("-server (%s) printed no PID: is the server up?", c.Server)
	}
	return pids, nil
}
