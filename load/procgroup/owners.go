package procgroup

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/imbench/imbench/internal/loopback"
	"github.com/imbench/imbench/internal/profile"
)

// Owner is a process listening on one of a run's ports: the target's own
// process, whatever its name, and however many others of that name run on
// the host.
type Owner struct {
	PID       int
	Component string // the first profile group that selects it, else its comm
	Ports     []int  // the run's ports it listens on
}

// ListenOwners finds the processes listening on ports of this machine
// (/proc/net/tcp and tcp6: the sockets in LISTEN, their inodes, then the
// processes holding them), each named by the first of groups that selects it
// as process-exporter would, else by its comm. A process whose descriptors
// cannot be read (another user's) is not found.
func ListenOwners(ports []int, groups []profile.Process) ([]Owner, error) {
	m, err := newMatcher(groups)
	if err != nil {
		return nil, err
	}
	return listenOwners(ports, m)
}

func listenOwners(ports []int, m matcher) ([]Owner, error) {
	inodes := map[string]int{} // socket inode → port
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if err := listening(f, ports, inodes); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	if len(inodes) == 0 {
		return nil, nil
	}
	var out []Owner
	for pid, d := range processes() {
		fds, err := os.ReadDir(d + "/fd")
		if err != nil {
			continue
		}
		var held []int
		for _, fd := range fds {
			link, err := os.Readlink(d + "/fd/" + fd.Name())
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			if port, ok := inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")]; ok && !slices.Contains(held, port) {
				held = append(held, port)
			}
		}
		if len(held) == 0 {
			continue
		}
		slices.Sort(held)
		comm, _ := os.ReadFile(d + "/comm")
		cmd, _ := os.ReadFile(d + "/cmdline")
		c := strings.TrimSpace(string(comm))
		name := m.byPort(held)
		if name == "" {
			name = m.match(c, strings.ReplaceAll(string(cmd), "\x00", " "))
		}
		if name == "" {
			name = c
		}
		out = append(out, Owner{PID: pid, Component: name, Ports: held})
	}
	return out, nil
}

// listening adds the inodes of f's sockets in LISTEN (state 0A) on one of
// ports.
func listening(f string, ports []int, inodes map[string]int) error {
	raw, err := os.ReadFile(f)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Scan() // the header
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 10 || fs[3] != "0A" {
			continue
		}
		_, hexPort, ok := strings.Cut(fs[1], ":")
		if !ok {
			continue
		}
		port, err := strconv.ParseInt(hexPort, 16, 32)
		if err != nil || !slices.Contains(ports, int(port)) {
			continue
		}
		inodes[fs[9]] = int(port)
	}
	return sc.Err()
}

// readPss is smaps_rollup's Pss line, in bytes.
func readPss(dir string) (float64, bool) {
	raw, err := os.ReadFile(dir + "/smaps_rollup")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, err := strconv.ParseFloat(f[0], 64)
				return kb * 1024, err == nil
			}
		}
	}
	return 0, false
}

// matcher selects a process's group as process-exporter does: the first
// group whose comm or command line selects it.
type matcher []group

func newMatcher(groups []profile.Process) (matcher, error) {
	var m matcher
	for _, g := range groups {
		gg := group{name: g.Group, comm: g.Comm, ports: g.Ports}
		for _, re := range g.Cmdline {
			r, err := regexp.Compile(re)
			if err != nil {
				return nil, fmt.Errorf("process group %s: %w", g.Group, err)
			}
			gg.cmdline = append(gg.cmdline, r)
		}
		m = append(m, gg)
	}
	return m, nil
}

// byPort is the first group that names one of ports as its own.
func (m matcher) byPort(ports []int) string {
	for _, g := range m {
		for _, p := range ports {
			if slices.Contains(g.ports, p) {
				return g.name
			}
		}
	}
	return ""
}

func (m matcher) match(comm, cmdline string) string {
	for _, g := range m {
		if slices.Contains(g.comm, comm) {
			return g.name
		}
		for _, re := range g.cmdline {
			if re.MatchString(cmdline) {
				return g.name
			}
		}
	}
	return ""
}

// Ports are the ports of endpoints (URLs, comma-separated lists of them)
// on this machine: none for a remote one, measured on its own host.
func Ports(endpoints []string) []int {
	var out []int
	for _, raw := range endpoints {
		for _, one := range strings.Split(raw, ",") {
			one = strings.TrimSpace(one)
			u, err := url.Parse(one)
			if err != nil || loopback.Require(one) != nil {
				continue
			}
			port, err := strconv.Atoi(u.Port())
			if err == nil && !slices.Contains(out, port) {
				out = append(out, port)
			}
		}
	}
	return out
}

// openFiles is a process's open descriptors and its soft limit of them
// (/proc/<pid>/limits' "Max open files"; 0 where unlimited or unread).
func openFiles(dir string) (n, limit int, ok bool) {
	fds, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return 0, 0, false
	}
	raw, _ := os.ReadFile(dir + "/limits")
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				limit, _ = strconv.Atoi(f[0])
			}
		}
	}
	return len(fds), limit, true
}

// allowedCPUs counts the CPUs a process may run on: /proc/<pid>/status'
// Cpus_allowed_list ("0-3,6"), 0 where unread.
func allowedCPUs(dir string) int { return CountCPUs(cpuList(dir)) }

// cpuList is a process's Cpus_allowed_list ("0-3,6"), "" where unread.
func cpuList(dir string) string {
	raw, err := os.ReadFile(dir + "/status")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// CountCPUs counts the CPUs of a list such as "0-3,6" (0 where it is not one).
func CountCPUs(list string) int {
	cpus, err := CPUList(list)
	if err != nil {
		return 0
	}
	return len(cpus)
}

// CPUList reads a kernel CPU list such as "0-3,6" ("" is none).
func CPUList(list string) ([]int, error) {
	if list = strings.TrimSpace(list); list == "" {
		return nil, nil
	}
	var cpus []int
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("CPU list %q: want e.g. 0, 0,2 or 1-3", list)
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// ServingCPUs counts the CPUs the processes listening on ports may run on
// together (the union of their affinities: a server pinned with taskset
// to one core has one), 0 where none was found or read.
func ServingCPUs(ports []int) int {
	owners, err := ListenOwners(ports, nil)
	if err != nil {
		return 0
	}
	cpus := map[int]bool{}
	for _, o := range owners {
		list, _ := CPUList(cpuList(fmt.Sprintf("/proc/%d", o.PID)))
		for _, c := range list {
			cpus[c] = true
		}
	}
	return len(cpus)
}
