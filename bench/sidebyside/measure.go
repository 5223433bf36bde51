package sidebyside

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/imbench/imbench/load/procgroup"
)

// sample is what one look saw: the server's CPU seconds, its delivery
// counter, and the tool's CPU seconds (the live process tree's).
type sample struct {
	at     time.Time
	server float64
	count  float64
	tool   float64
	// the server's read and write system calls (io: /proc/PID/io was
	// readable), and the Also counters
	reads, writes float64
	io            bool
	also          []float64
}

func measureOne(ctx context.Context, c Config, t Tool, round int) (r Run, err error) {
	r = Run{Tool: t.Name, Round: round}
	// -after runs whatever happened, -before's failure included (it may
	// have started the server); a server that did not stop would make the
	// next run's server not a fresh one.
	defer func() {
		if c.After == "" {
			return
		}
		if _, aerr := shell(context.WithoutCancel(ctx), c, "-after", c.After); aerr != nil && err == nil {
			err = aerr
		}
	}()
	if c.Before != "" {
		if _, err := shell(ctx, c, "-before", c.Before); err != nil {
			return r, err
		}
	}
	pids, err := serverPIDs(ctx, c)
	if err != nil {
		return r, err
	}
	if c.ServerCPUs != "" {
		if err := pin(pids, c.ServerCPUs); err != nil {
			return r, err
		}
	}
	first, err := look(c, pids, 0)
	if err != nil {
		return r, err
	}
	r.At, r.LoadStart = first.at, load1()
	r.LoadMax = r.LoadStart

	rctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	argv := []string{"sh", "-c", t.Command}
	if c.ToolCPUs != "" {
		argv = append([]string{"taskset", "-c", c.ToolCPUs}, argv...)
	}
	cmd := exec.CommandContext(rctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return r, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	samples := []sample{first}
	tick := time.NewTicker(c.Every)
	defer tick.Stop()
	var werr error
wait:
	for {
		select {
		case werr = <-done:
			break wait
		case <-tick.C:
			if s, err := look(c, pids, cmd.Process.Pid); err == nil {
				samples = append(samples, s)
			}
			r.LoadMax = max(r.LoadMax, load1())
		}
	}
	end := time.Now()
	last, err := look(c, pids, 0)
	if err != nil {
		return r, fmt.Errorf("after the run: %w", err)
	}
	if werr != nil {
		return r, fmt.Errorf("%s (%s): %w", t.Name, t.Command, werr)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.ToolUserCPU = tv(ru.Utime)
		r.ToolCPU = r.ToolUserCPU + tv(ru.Stime)
		r.ToolMaxRSS = ru.Maxrss * 1024
	}
	last.tool = max(r.ToolCPU, samples[len(samples)-1].tool) // the tool's whole account, once it has ended
	samples = append(samples, last)
	r.Seconds = end.Sub(first.at).Seconds()
	r.Deliveries = last.count - first.count
	r.ServerCPU = last.server - first.server
	from, to := window(samples)
	r.WindowSeconds = samples[to].at.Sub(samples[from].at).Seconds()
	r.WindowDeliveries = samples[to].count - samples[from].count
	r.ServerCPUWindow = samples[to].server - samples[from].server
	r.ToolCPUWindow = samples[to].tool - samples[from].tool
	if a, b := samples[from], samples[to]; a.io && b.io {
		r.ServerReadsWindow, r.ServerWritesWindow = b.reads-a.reads, b.writes-a.writes
	}
	if len(c.Also) > 0 {
		r.AlsoWindow = map[string]float64{}
		for i, m := range c.Also {
			r.AlsoWindow[m] = samples[to].also[i] - samples[from].also[i]
		}
	}
	return r, nil
}

// window is the samples around the counter's rise: the last before it
// first rose and the first after it last rose.
func window(s []sample) (from, to int) {
	from, to = 0, len(s)-1
	for i := 1; i < len(s); i++ {
		if s[i].count > s[0].count {
			from = i - 1
			break
		}
	}
	final := s[len(s)-1].count
	for i := from; i < len(s); i++ {
		if s[i].count >= final {
			return from, i
		}
	}
	return from, to
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// look samples the server's CPU and counter, and the tool tree's CPU
// (toolPID 0: none).
func look(c Config, pids []int, toolPID int) (sample, error) {
	s := sample{at: time.Now(), io: true}
	for _, pid := range pids {
		cpu, _, err := procCPU(pid)
		if err != nil {
			return s, fmt.Errorf("server process %d: %w", pid, err)
		}
		s.server += cpu
		r, w, err := procIO(pid)
		s.reads, s.writes, s.io = s.reads+r, s.writes+w, s.io && err == nil
	}
	if toolPID > 0 {
		s.tool = treeCPU(toolPID)
	}
	v, err := counters(c.CountURL, append([]string{c.CountMetric}, c.Also...))
	if err != nil {
		return s, err
	}
	s.count, s.also = v[0], v[1:]
	return s, nil
}

// procIO is a process's read and write system calls so far (readable for
// one's own processes).
func procIO(pid int) (reads, writes float64, err error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		n, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
		switch k {
		case "syscr":
			reads = n
		case "syscw":
			writes = n
		}
	}
	return reads, writes, nil
}

// procCPU is a process's user+system CPU seconds, with those of the
// children it has waited for (so a tool's exited helpers still count), and
// its parent.
func procCPU(pid int) (cpu float64, ppid int, err error) {
	fields := []int{11, 12, 13, 14} // utime, stime, cutime, cstime after the name
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	i := strings.LastIndexByte(string(raw), ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	f := strings.Fields(string(raw[i+2:]))
	if len(f) < 15 {
		return 0, 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	ppid, _ = strconv.Atoi(f[1])
	var sum float64
	for _, k := range fields { // its own and its waited-for children's
		v, _ := strconv.ParseFloat(f[k], 64)
		sum += v
	}
	return sum / 100, ppid, nil // USER_HZ is 100 on Linux
}

// treeCPU is the CPU of root and its live descendants.
func treeCPU(root int) float64 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	cpu, parent := map[int]float64{}, map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if c, pp, err := procCPU(pid); err == nil {
			cpu[pid], parent[pid] = c, pp
		}
	}
	var sum float64
	for pid, c := range cpu {
		for p := pid; p > 1; p = parent[p] {
			if p == root {
				sum += c
				break
			}
		}
	}
	return sum
}

var client = &http.Client{Timeout: 5 * time.Second}

// counters sums every series of each metric in a Prometheus text page.
func counters(url string, metrics []string) ([]float64, error) {
	resp, err := client.Get(url)
	if err != nil {
		return nil, fmt.Errorf("the server's counter: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the server's counter: %s answered %s", url, resp.Status)
	}
	sums := make([]float64, len(metrics))
	found := make([]bool, len(metrics))
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		m := slices.IndexFunc(metrics, func(name string) bool { return seriesOf(line, name) })
		if m < 0 {
			continue
		}
		rest := line[len(metrics[m]):]
		if j := strings.LastIndexByte(rest, '}'); j >= 0 {
			rest = rest[j+1:]
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		sums[m], found[m] = sums[m]+v, true
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for i, ok := range found {
		if !ok {
			return nil, fmt.Errorf("the server's counter: no %s at %s", metrics[i], url)
		}
	}
	return sums, nil
}

// seriesOf tells whether a metrics line is a series of metric (its name
// followed by labels or the value).
func seriesOf(line, metric string) bool {
	rest, ok := strings.CutPrefix(line, metric)
	return ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t' || rest[0] == '{')
}

// pin binds every thread of the processes to the CPUs; threads they start
// later inherit it.
func pin(pids []int, cpus string) error {
	set, err := parseCPUs(cpus)
	if err != nil {
		return err
	}
	for _, pid := range pids {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			return err
		}
		for _, t := range tasks {
			tid, _ := strconv.Atoi(t.Name())
			if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH { // ESRCH: the thread has ended
				return fmt.Errorf("pinning server thread %d to CPUs %s: %w", tid, cpus, err)
			}
		}
	}
	return nil
}

// parseCPUs reads a CPU list ("0", "0,2", "1-3") of online CPUs (up to
// runtime.NumCPU() where the kernel's online list is unreadable).
func parseCPUs(list string) (unix.CPUSet, error) {
	var set unix.CPUSet
	raw, _ := os.ReadFile("/sys/devices/system/cpu/online")
	online, _ := procgroup.CPUList(string(raw))
	if len(online) == 0 {
		for i := range runtime.NumCPU() {
			online = append(online, i)
		}
	}
	bad := fmt.Errorf("CPU list %q: want e.g. 0, 0,2 or 1-3 of this machine's online CPUs (%s)", list, strings.TrimSpace(string(raw)))
	cpus, err := procgroup.CPUList(list)
	if err != nil || len(cpus) == 0 {
		return set, bad
	}
	for _, i := range cpus {
		if i >= 1024 || !slices.Contains(online, i) {
			return set, bad
		}
		set.Set(i)
	}
	return set, nil
}

func load1() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
