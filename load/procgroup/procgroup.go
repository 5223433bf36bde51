// Package procgroup samples this machine's processes in the groups a
// target profile names (by comm, or by a regexp of the command line, the
// first group that matches taking a process, as process-exporter does): each
// group's CPU and resident memory over time, for figures over a window
// where no Prometheus ran.
package procgroup

import (
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/imbench/imbench/internal/profile"
)

const clockTicks = 100 // sysconf(_SC_CLK_TCK) on Linux

// point is one group at one moment: its processes' CPU seconds since they
// started, summed, and their resident memory.
type point struct {
	at    time.Time
	cpu   float64
	rss   float64
	procs int
	pids  map[int]float64 // each process's CPU seconds, so that one that ends takes its seconds with it
	tree  map[int]times   // each process's times, the children it reaped included (treeDelta)
	tids  map[int]float64 // each thread's CPU seconds: a part whose work runs on one thread shows it full
	// waits: each thread's seconds waiting for a core while it could run
	// (its run-queue wait, /proc/…/schedstat): a thread with work for a
	// whole core on a busy machine shows less than a core of CPU, and its
	// CPU and its wait together fill the window.
	waits map[int]float64
	// fds and fdLimit: the open files of the process nearest its limit
	// (sampled for the listening owners only: a count of each descriptor).
	fds, fdLimit int
	cpus         int    // the CPUs the listening owners may run on, summed (their affinity; 0: not read)
	cpuSet       string // the CPUs every process of the group may run on ("0-3,6"); mixedSets where they differ
	others       int    // processes of the group's name not measured: not the run's server
}

// mixedSets marks a group whose processes may run on different CPUs.
const mixedSets = "mixed"

// Sampler samples groups every interval until Stop.
type Sampler struct {
	groups matcher
	stop   chan struct{}
	done   chan struct{}
	ports  []int // the run's ports on this machine: their owners are the target

	owners   map[int]Owner // by PID, looked up every rediscoverEvery
	ownedBy  map[string]bool
	ownersAt time.Time
	// rediscover: look the owners up at the next sample, however recent
	// the last look.
	rediscover atomic.Bool

	mu      sync.Mutex
	points  map[string][]point
	machine []machinePoint
}

// machinePoint is /proc/stat's busy, stolen and total jiffies of every
// core.
type machinePoint struct {
	at                 time.Time
	busy, steal, total float64
}

type group struct {
	name    string
	comm    []string
	cmdline []*regexp.Regexp
	ports   []int // its own listening ports (profile.Process.Ports)
}

// rediscoverEvery is how often the owners of the run's ports are looked
// up again (a restarted server has another PID).
const rediscoverEvery = 30 * time.Second

// Start samples the groups every interval (a second if 0). Where ports
// are given (the run's, and those the groups name as their own), a group
// one of their listening owners belongs to is those owners and their
// process trees: the run's server, not every process of its name on the
// host (another person's, another run's); the groups no owner belongs to
// are taken by name.
func Start(groups []profile.Process, interval time.Duration, ports ...int) (*Sampler, error) {
	if interval <= 0 {
		interval = time.Second
	}
	m, err := newMatcher(groups)
	if err != nil {
		return nil, err
	}
	ports = append(slices.Clone(ports), profile.GroupPorts(groups)...)
	s := &Sampler{groups: m, stop: make(chan struct{}), done: make(chan struct{}), points: map[string][]point{}, ports: ports}
	s.sample()
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				s.sample()
				return
			case <-t.C:
				s.sample()
			}
		}
	}()
	return s, nil
}

// Stop takes a last sample and stops.
func (s *Sampler) Stop() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
}

// processes are this machine's processes: each pid and its /proc folder.
func processes() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			if pid, err := strconv.Atoi(filepath.Base(d)); err == nil && !yield(pid, d) {
				return
			}
		}
	}
}

// lookOwners finds the ports' listening owners again when the last look
// is old.
func (s *Sampler) lookOwners(now time.Time) {
	if len(s.ports) == 0 || !s.rediscover.Swap(false) && !s.ownersAt.IsZero() && now.Sub(s.ownersAt) < rediscoverEvery {
		return
	}
	s.ownersAt = now
	owners, err := listenOwners(s.ports, s.groups)
	if err != nil {
		return
	}
	byPID, groups := map[int]Owner{}, map[string]bool{}
	for _, o := range owners {
		byPID[o.PID] = o
		groups[o.Component] = true
	}
	s.mu.Lock()
	s.owners, s.ownedBy = byPID, groups
	s.mu.Unlock()
}

func (s *Sampler) sample() {
	now := time.Now()
	s.lookOwners(now)
	type seen struct {
		dir, group string
		t          times
	}
	all, byPID := map[int]seen{}, map[int]times{}
	for pid, d := range processes() {
		t, ok := readTimes(d)
		if !ok {
			continue
		}
		comm, _ := os.ReadFile(d + "/comm")
		cmd, _ := os.ReadFile(d + "/cmdline")
		all[pid] = seen{dir: d, group: s.match(strings.TrimSpace(string(comm)), strings.ReplaceAll(string(cmd), "\x00", " ")), t: t}
		byPID[pid] = t
	}
	cur := map[string]*point{}
	others := map[string]int{}
	for pid, p := range all {
		// A group the run's ports found is its listening owners and their
		// process trees (a PostgreSQL postmaster's backends), whatever
		// their names; other processes of its name are someone else's.
		g := p.group
		if comp, ok := s.ownerOf(pid, byPID); ok && (g == "" || g == comp) {
			g = comp
		} else if s.ownedBy[g] {
			others[g]++
			continue
		}
		if g == "" {
			continue
		}
		_, owner := s.owners[pid]
		d := p.dir
		pt := cur[g]
		if pt == nil {
			pt = &point{at: now, pids: map[int]float64{}, tree: map[int]times{}, tids: map[int]float64{}, waits: map[int]float64{}}
			cur[g] = pt
		}
		set := cpuList(d)
		if owner {
			if n, limit, ok := openFiles(d); ok && (pt.fdLimit == 0 || limit > 0 && float64(n)/float64(limit) > float64(pt.fds)/float64(max(pt.fdLimit, 1))) {
				pt.fds, pt.fdLimit = n, limit
			}
			pt.cpus += CountCPUs(set)
		}
		switch {
		case pt.procs == 0:
			pt.cpuSet = set
		case set != pt.cpuSet:
			pt.cpuSet = mixedSets
		}
		pt.pids[pid] = p.t.own
		pt.tree[pid] = p.t
		tasks, _ := filepath.Glob(d + "/task/[0-9]*")
		for _, td := range tasks {
			if tid, err := strconv.Atoi(filepath.Base(td)); err == nil {
				if c, w, ok := readThread(td); ok {
					pt.tids[tid] = c
					if w >= 0 {
						pt.waits[tid] = w
					}
				}
			}
		}
		// Each process's proportional share of its memory, where the kernel
		// gives it: the shared memory of a server of many processes (a
		// PostgreSQL's buffers, mapped by each of its backends) counts once,
		// as the run's report counts it.
		if pss, ok := readPss(d); ok {
			pt.rss += pss
		} else {
			pt.rss += p.t.rss
		}
		pt.procs++
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := readMachine(); ok {
		m.at = now
		s.machine = append(s.machine, m)
	}
	for g, p := range cur {
		p.others = others[g]
		for _, c := range p.pids {
			p.cpu += c
		}
		s.points[g] = append(s.points[g], *p)
	}
}

// ownerOf is the component of the listening owner pid is, or descends
// from.
func (s *Sampler) ownerOf(pid int, all map[int]times) (string, bool) {
	for p, hops := pid, 0; p > 1 && hops < 64; p, hops = all[p].ppid, hops+1 {
		if o, ok := s.owners[p]; ok {
			return o.Component, true
		}
		if _, known := all[p]; !known {
			break
		}
	}
	return "", false
}

// match is the first group whose comm or command line selects a process.
func (s *Sampler) match(comm, cmdline string) string { return s.groups.match(comm, cmdline) }

func readProc(dir string) (cpu, rss float64, ok bool) {
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 || i+2 > len(stat) {
		return 0, 0, false
	}
	f := strings.Fields(string(stat[i+2:]))
	if len(f) < 22 {
		return 0, 0, false
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	rssPages, _ := strconv.ParseFloat(f[21], 64)
	return (utime + stime) / clockTicks, rssPages * float64(os.Getpagesize()), true
}

// readThread reads a thread's CPU seconds and its seconds waiting for a
// core from its schedstat (nanoseconds); where the kernel keeps none, its
// CPU from its stat and a wait of -1.
func readThread(dir string) (cpu, wait float64, ok bool) {
	if raw, err := os.ReadFile(dir + "/schedstat"); err == nil {
		if f := strings.Fields(string(raw)); len(f) >= 2 {
			run, err1 := strconv.ParseFloat(f[0], 64)
			queued, err2 := strconv.ParseFloat(f[1], 64)
			if err1 == nil && err2 == nil {
				return run / 1e9, queued / 1e9, true
			}
		}
	}
	cpu, _, ok = readProc(dir)
	return cpu, -1, ok
}

// Usage is one group over a window: CPU in % of one core (average, and the
// peak of the sampling intervals), resident memory (average, peak, and its
// rise from the window's first quarter to its last), processes.
type Usage struct {
	Group            string
	Processes        float64
	PIDs             []int  // the processes measured, at the window's end
	Others           int    // processes of the name left out: not the listening owners of the run's ports
	FDPeak, FDLimit  int    // the listening owners' open files at their fullest, and that process's limit (0: not read)
	CPUs             int    // the CPUs its listening owners may run on (their affinity, taskset; 0: not read)
	CPUSet           string // the CPUs all its processes may run on through the window ("0-3,6"; "" where they differ)
	CPUAvg, CPUPeak  float64
	CPUBusiest       float64 // the busiest process's average, % of one core
	CPUBusiestThread float64 // the busiest thread's average, % of one core
	// ThreadRunnable is the share of the window, %, the thread least idle
	// was running or waiting for a core (100: it never slept: its work
	// would have filled its core), ThreadWaiting the part of it waiting;
	// both 0 where the kernel keeps no run-queue times.
	ThreadRunnable, ThreadWaiting float64
	RSSAvg, RSSPeak, RSSGrown     float64
}

// clamp keeps figures to what is possible: a group's CPU to the cores its
// processes may run on, a thread's share of the window to all of it. A
// counter read a moment off its sample's time can read over them.
func (u *Usage) clamp() {
	cores := runtime.NumCPU()
	if n := CountCPUs(u.CPUSet); n > 0 {
		cores = min(cores, n)
	}
	most := 100 * float64(cores)
	u.CPUAvg, u.CPUPeak = min(u.CPUAvg, most), min(u.CPUPeak, most)
	u.CPUBusiest, u.CPUBusiestThread = min(u.CPUBusiest, most), min(u.CPUBusiestThread, 100)
	u.ThreadRunnable = min(u.ThreadRunnable, 100)
	u.ThreadWaiting = min(u.ThreadWaiting, u.ThreadRunnable)
}

// Window gives each group's usage over [from, to]; groups with fewer than
// two samples there are left out.
func (s *Sampler) Window(from, to time.Time) []Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Usage
	for _, g := range s.groups {
		var in []point
		for _, p := range s.points[g.name] {
			if !p.at.Before(from) && !p.at.After(to) {
				in = append(in, p)
			}
		}
		if len(in) < 2 {
			continue
		}
		u := Usage{Group: g.name}
		var busy, wall float64
		perPID, perTID, perWait := map[int]float64{}, map[int]float64{}, map[int]float64{}
		for i := 1; i < len(in); i++ {
			dt := in[i].at.Sub(in[i-1].at).Seconds()
			cpuDelta(in[i-1].pids, in[i].pids, perPID)
			d := treeDelta(in[i-1].tree, in[i].tree)
			cpuDelta(in[i-1].tids, in[i].tids, perTID)
			cpuDelta(in[i-1].waits, in[i].waits, perWait)
			busy += d
			wall += dt
			if dt > 0 {
				u.CPUPeak = max(u.CPUPeak, 100*d/dt)
			}
		}
		if wall > 0 {
			u.CPUAvg = 100 * busy / wall
			for _, b := range perPID {
				u.CPUBusiest = max(u.CPUBusiest, 100*b/wall)
			}
			for tid, b := range perTID {
				u.CPUBusiestThread = max(u.CPUBusiestThread, 100*b/wall)
				if w, ok := perWait[tid]; ok && 100*(b+w)/wall > u.ThreadRunnable {
					u.ThreadRunnable, u.ThreadWaiting = 100*(b+w)/wall, 100*w/wall
				}
			}
		}
		q := max(len(in)/4, 1)
		var first, last float64
		u.CPUSet = in[0].cpuSet
		for i, p := range in {
			if p.cpuSet != u.CPUSet {
				u.CPUSet = mixedSets
			}
			u.RSSAvg += p.rss / float64(len(in))
			u.RSSPeak = max(u.RSSPeak, p.rss)
			u.Processes = max(u.Processes, float64(p.procs))
			u.Others = max(u.Others, p.others)
			u.CPUs = max(u.CPUs, p.cpus)
			if p.fdLimit > 0 && (u.FDLimit == 0 || float64(p.fds)/float64(p.fdLimit) > float64(u.FDPeak)/float64(u.FDLimit)) {
				u.FDPeak, u.FDLimit = p.fds, p.fdLimit
			}
			if i < q {
				first += p.rss / float64(q)
			}
			if i >= len(in)-q {
				last += p.rss / float64(q)
			}
		}
		u.RSSGrown = last - first
		if u.CPUSet == mixedSets {
			u.CPUSet = ""
		}
		u.clamp()
		for pid := range in[len(in)-1].pids {
			u.PIDs = append(u.PIDs, pid)
		}
		slices.Sort(u.PIDs)
		out = append(out, u)
	}
	return out
}

// cpuDelta is the CPU seconds a group's processes (or threads) used
// between two samples, each one present in both, so that one starting or
// ending in between does not count its whole life; per takes each one's.
func cpuDelta(a, b map[int]float64, per map[int]float64) float64 {
	var d float64
	for id, c := range b {
		if prev, ok := a[id]; ok && c >= prev {
			d += c - prev
			per[id] += c - prev
		}
	}
	return d
}

// readMachine reads the machine's busy, stolen and total jiffies, all
// cores. Steal (a virtual machine's cores run for others by its host) is
// busy, and stands apart as well: a thread that ran all the time it was
// given shows that much less of its core.
func readMachine() (m machinePoint, ok bool) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return m, false
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	return parseMachine(line)
}

// parseMachine reads /proc/stat's first line, the "cpu" of all cores.
func parseMachine(line string) (m machinePoint, ok bool) {
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return m, false
	}
	// user nice system idle iowait irq softirq steal, then guest and
	// guest_nice, which user and nice already count.
	for i, v := range f[1:min(len(f), 9)] {
		x, _ := strconv.ParseFloat(v, 64)
		m.total += x
		if i != 3 && i != 4 { // idle, iowait
			m.busy += x
		}
		if i == 7 {
			m.steal = x
		}
	}
	return m, true
}

// MachineBusy is the machine's busy share of all its cores over [from,
// to], 0..1 (0 with fewer than two samples there).
func (s *Sampler) MachineBusy(from, to time.Time) float64 {
	first, last, ok := s.machineSpan(from, to)
	if !ok {
		return 0
	}
	return (last.busy - first.busy) / (last.total - first.total)
}

// MachineStolen is the share of all the machine's cores its host ran for
// others over [from, to] (steal, on a virtual machine), 0..1.
func (s *Sampler) MachineStolen(from, to time.Time) float64 {
	first, last, ok := s.machineSpan(from, to)
	if !ok {
		return 0
	}
	return max(0, last.steal-first.steal) / (last.total - first.total)
}

// machineSpan is the first and last machine samples in [from, to]; not
// ok with fewer than two, or none apart.
func (s *Sampler) machineSpan(from, to time.Time) (first, last machinePoint, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, p := range s.machine {
		if p.at.Before(from) || p.at.After(to) {
			continue
		}
		if n == 0 {
			first = p
		}
		last = p
		n++
	}
	return first, last, n >= 2 && last.total > first.total
}

// Rediscover looks the ports' listening owners up again at the next
// sample: the server was just restarted.
func (s *Sampler) Rediscover() { s.rediscover.Store(true) }

// Owners are the listening owners of the ports at the last look.
func (s *Sampler) Owners() []Owner {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Owner
	for _, o := range s.owners {
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b Owner) int { return a.PID - b.PID })
	return out
}

// OthersOfName counts, at the last sample, the processes of the owners'
// groups that are not owners.
func (s *Sampler) OthersOfName() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for g := range s.ownedBy {
		if p := s.points[g]; len(p) > 0 {
			n += p[len(p)-1].others
		}
	}
	return n
}

// MachineCores is the machine's online CPUs (/proc/stat's cpuN lines),
// whatever this process's affinity (runtime.NumCPU counts only the CPUs
// it may run on: 1 under taskset -c 0); runtime.NumCPU where unread.
func MachineCores() int {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return runtime.NumCPU()
	}
	n := 0
	for line := range strings.Lines(string(raw)) {
		if len(line) > 3 && strings.HasPrefix(line, "cpu") && line[3] >= '0' && line[3] <= '9' {
			n++
		}
	}
	if n == 0 {
		return runtime.NumCPU()
	}
	return n
}
