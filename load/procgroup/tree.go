package procgroup

import (
	"os"
	"strconv"
	"strings"
)

// times is what a process has used: its own CPU seconds, those of the
// children it has reaped (cutime + cstime: a PostgreSQL backend that lived
// two seconds between two looks ends up there), its parent, its memory.
type times struct {
	own, reaped float64
	ppid        int
	rss         float64
}

// readTimes reads a process's /proc/<pid>/stat.
func readTimes(dir string) (times, bool) {
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return times{}, false
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 || i+2 > len(stat) {
		return times{}, false
	}
	f := strings.Fields(string(stat[i+2:]))
	if len(f) < 22 {
		return times{}, false
	}
	num := func(k int) float64 { v, _ := strconv.ParseFloat(f[k], 64); return v }
	ppid, _ := strconv.Atoi(f[1])
	return times{own: (num(11) + num(12)) / clockTicks, reaped: (num(13) + num(14)) / clockTicks, ppid: ppid,
		rss: num(21) * float64(os.Getpagesize())}, true
}

// treeDelta is the CPU seconds a set of processes used between two looks
// at it, a and b, the time of children it forked and reaped in between
// included. One present at both counts its own growth and its reaped
// children's; one that appeared as a child of the set counts all it used
// (it was forked after the first look); one gone whose parent is still in
// the set counts less what it had at the first look, for its parent's
// reaped time now holds all of it. One gone whose parent is not in the set
// takes what it used after the first look with it.
func treeDelta(a, b map[int]times) float64 {
	var d float64
	for pid, t := range b {
		prev, ok := a[pid]
		switch {
		case ok && t.own >= prev.own && t.reaped >= prev.reaped:
			d += t.own - prev.own + t.reaped - prev.reaped
		case !ok && inSet(b, t.ppid):
			d += t.own + t.reaped
		}
	}
	for pid, t := range a {
		if _, still := b[pid]; !still && inSet(b, t.ppid) {
			d -= t.own + t.reaped
		}
	}
	return max(d, 0)
}

func inSet(m map[int]times, pid int) bool {
	_, ok := m[pid]
	return ok
}

// family is a root's process tree in all (every process by pid): the root
// and every process whose parents lead to it.
func family(root int, all map[int]times) map[int]times {
	out := map[int]times{}
	if t, ok := all[root]; ok {
		out[root] = t
	}
	for pid, t := range all {
		for p, hops := t.ppid, 0; p > 1 && hops < 64; p, hops = all[p].ppid, hops+1 {
			if p == root {
				out[pid] = t
				break
			}
			if _, known := all[p]; !known {
				break
			}
		}
	}
	return out
}

// allTimes reads every process of this machine.
func allTimes() map[int]times {
	out := map[int]times{}
	for pid, d := range processes() {
		if t, ok := readTimes(d); ok {
			out[pid] = t
		}
	}
	return out
}

// TreeMeter counts the CPU seconds of process trees (a root and its
// descendants, the children they reaped included) as counters that only
// grow: a server that forks a short-lived process per connection, as
// PostgreSQL does, is measured whole, not by its listening process alone.
type TreeMeter struct {
	last  map[int]map[int]times
	total map[int]float64
}

// TreeUsage is a process tree's CPU seconds so far (from its root's own
// at the first look, then every look's growth), the memory of its live
// processes (each one's proportional share where the kernel gives it),
// and how many they are.
type TreeUsage struct {
	CPUSeconds, MemBytes float64
	Processes            int
}

// Usage is each root's tree's usage.
func (m *TreeMeter) Usage(roots []int) map[int]TreeUsage {
	if m.last == nil {
		m.last, m.total = map[int]map[int]times{}, map[int]float64{}
	}
	all := allTimes()
	out := map[int]TreeUsage{}
	for _, root := range roots {
		fam := family(root, all)
		r, ok := fam[root]
		if !ok {
			continue
		}
		if prev, seen := m.last[root]; seen {
			m.total[root] += treeDelta(prev, fam)
		} else {
			m.total[root] = r.own + r.reaped
		}
		m.last[root] = fam
		var mem float64
		for pid, t := range fam {
			if pss, ok := readPss("/proc/" + strconv.Itoa(pid)); ok {
				mem += pss
			} else {
				mem += t.rss
			}
		}
		out[root] = TreeUsage{CPUSeconds: m.total[root], MemBytes: mem, Processes: len(fam)}
	}
	for root := range m.last {
		if _, ok := out[root]; !ok {
			delete(m.last, root)
			delete(m.total, root)
		}
	}
	return out
}
