// Package cpulimit says how many cores this process may really use: its
// GOMAXPROCS, its CPU affinity and its cgroup's CPU quota (v1 and v2, the
// tightest of its cgroup and their parents), and how often the quota held
// it back (throttled periods). A generator in a Kubernetes pod with a CPU
// limit has GOMAXPROCS of the node's cores and a fraction of one to run on.
package cpulimit

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Limits are this process's cores by each bound and the one that binds.
type Limits struct {
	GOMAXPROCS int     `json:"gomaxprocs"`
	Affinity   int     `json:"affinity"`              // CPUs it may be scheduled on (0: unknown)
	Quota      float64 `json:"quota_cores,omitempty"` // its cgroup's CPU quota in cores (0: none)
	QuotaPath  string  `json:"quota_cgroup,omitempty"`
	Cores      float64 `json:"cores"` // the least of them
	Why        string  `json:"why"`   // which bound that is, in words
}

// Own reads this process's limits.
func Own() Limits {
	l := Limits{GOMAXPROCS: runtime.GOMAXPROCS(0)}
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) == nil {
		l.Affinity = set.Count()
	}
	l.Quota, l.QuotaPath = quota()
	l.Cores, l.Why = float64(l.GOMAXPROCS), fmt.Sprintf("GOMAXPROCS %d", l.GOMAXPROCS)
	// Go takes GOMAXPROCS from the affinity unless told otherwise: where
	// they are equal the affinity is what binds.
	if l.Affinity > 0 && (float64(l.Affinity) < l.Cores || float64(l.Affinity) == l.Cores && os.Getenv("GOMAXPROCS") == "") {
		l.Cores, l.Why = float64(l.Affinity), fmt.Sprintf("its CPU affinity: %d CPUs", l.Affinity)
	}
	if l.Quota > 0 && l.Quota < l.Cores {
		l.Cores, l.Why = l.Quota, fmt.Sprintf("the CPU quota of its cgroup %s: %s of a core", l.QuotaPath, strconv.FormatFloat(math.Round(l.Quota*100)/100, 'f', -1, 64))
	}
	return l
}

// Throttle is the quota's account of this process's cgroup: scheduling
// periods, those in which it was held back, and how long.
type Throttle struct {
	Periods, Throttled int64
	Seconds            float64
}

// Share is the throttled share of the periods between t0 and t (0..1).
func (t Throttle) Share(t0 Throttle) float64 {
	if p := t.Periods - t0.Periods; p > 0 {
		return float64(t.Throttled-t0.Throttled) / float64(p)
	}
	return 0
}

// OwnThrottle reads the cpu.stat of this process's cgroup, or of the
// parent whose quota binds it; ok is false without a CPU controller to
// read.
func OwnThrottle() (Throttle, bool) {
	dir, root, v2, ok := cpuCgroup()
	if !ok {
		return Throttle{}, false
	}
	if _, where := quota(); where != "" {
		dir = filepath.Join(root, where) // the cgroup whose quota binds counts its throttling
	}
	raw, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return Throttle{}, false
	}
	var t Throttle
	for line := range strings.Lines(string(raw)) {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "nr_periods":
			t.Periods = v
		case "nr_throttled":
			t.Throttled = v
		case "throttled_time": // v1: ns
			if !v2 {
				t.Seconds = float64(v) / 1e9
			}
		case "throttled_usec": // v2
			t.Seconds = float64(v) / 1e6
		}
	}
	return t, true
}

// quota is the tightest CPU quota of this process's cgroup and its
// parents, in cores, and the cgroup that sets it.
func quota() (float64, string) {
	dir, root, v2, ok := cpuCgroup()
	if !ok {
		return 0, ""
	}
	best, where := 0.0, ""
	for d := dir; strings.HasPrefix(d, root); d = filepath.Dir(d) {
		if q := quotaOf(d, v2); q > 0 && (best == 0 || q < best) {
			best, where = q, strings.TrimPrefix(d, root)
			if where == "" {
				where = "/"
			}
		}
		if d == root {
			break
		}
	}
	return best, where
}

func quotaOf(dir string, v2 bool) float64 {
	if v2 {
		raw, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
		f := strings.Fields(string(raw))
		if err != nil || len(f) != 2 || f[0] == "max" {
			return 0
		}
		q, _ := strconv.ParseFloat(f[0], 64)
		p, _ := strconv.ParseFloat(f[1], 64)
		if p <= 0 {
			return 0
		}
		return q / p
	}
	q := readNum(filepath.Join(dir, "cpu.cfs_quota_us"))
	p := readNum(filepath.Join(dir, "cpu.cfs_period_us"))
	if q <= 0 || p <= 0 {
		return 0 // -1: no quota
	}
	return q / p
}

func readNum(f string) float64 {
	raw, err := os.ReadFile(f)
	if err != nil {
		return 0
	}
	v, _ := strconv.ParseFloat(strings.TrimSpace(string(raw)), 64)
	return v
}

// mount is where a cgroup hierarchy is mounted, and which of its cgroups
// is that mount's root: a container on cgroup v1 sees only its own cgroup,
// mounted at /sys/fs/cgroup/<controller>, while /proc/self/cgroup names
// it by its whole path from the hierarchy's root.
type mount struct{ point, root string }

// dir is the folder of the cgroup at path (as /proc/self/cgroup names it).
func (m mount) dir(path string) string {
	if m.root != "/" {
		if rel, ok := strings.CutPrefix(path, m.root); ok && (rel == "" || rel[0] == '/') {
			return filepath.Join(m.point, rel)
		}
		return m.point // a path outside the mount: the mount's root is the nearest this process sees
	}
	return filepath.Join(m.point, path)
}

// mounts maps a cgroup v1 controller ("cpu"), or "" for the v2 hierarchy,
// to its mount, from /proc/self/mountinfo.
func mounts() map[string]mount {
	out := map[string]mount{}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fs, pf := strings.Fields(post), strings.Fields(pre)
		if !ok || len(fs) < 3 || len(pf) < 5 {
			continue
		}
		switch fs[0] {
		case "cgroup2":
			out[""] = mount{pf[4], pf[3]}
		case "cgroup":
			for _, opt := range strings.Split(fs[2], ",") {
				out[opt] = mount{pf[4], pf[3]}
			}
		}
	}
	return out
}

// cpuCgroup is the folder of this process's cgroup that holds its CPU
// controller's files, the mount point it lies under, and whether it is v2.
func cpuCgroup() (dir, root string, v2, ok bool) {
	raw, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", "", false, false
	}
	m := mounts()
	var unified string
	for line := range strings.Lines(string(raw)) {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			unified = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if cm, found := m["cpu"]; c == "cpu" && found {
				return cm.dir(parts[2]), cm.point, false, true
			}
		}
	}
	if um, found := m[""]; found && unified != "" {
		d := um.dir(unified)
		if _, err := os.Stat(filepath.Join(d, "cpu.stat")); err == nil {
			return d, um.point, true, true
		}
	}
	return "", "", false, false
}

// CPUMount is where the cgroup v1 cpu controller is mounted ("" where it
// is not).
func CPUMount() string { return mounts()["cpu"].point }
