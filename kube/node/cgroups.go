package node

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// hierarchies are the cgroup v1 hierarchies the host mounts (the cluster's
// cgroup is made in each), or the one cgroup v2 hierarchy.
func hierarchies() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var v1, v2 []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options … - fstype source superoptions
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, x := range fields {
			if x == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || sep+1 >= len(fields) || len(fields) < 5 {
			continue
		}
		switch fields[sep+1] {
		case "cgroup":
			v1 = append(v1, fields[4])
		case "cgroup2":
			v2 = append(v2, fields[4])
		}
	}
	if len(v1) > 0 {
		sort.Strings(v1)
		return v1, nil
	}
	return v2, sc.Err()
}

// makeCgroups makes the cluster's cgroup in every hierarchy; a new
// cpuset cgroup gets its parent's CPUs and memory nodes, or no process may
// join it.
func makeCgroups() error {
	hs, err := hierarchies()
	if err != nil {
		return err
	}
	for _, h := range hs {
		if err := makeCgroup(h, cgroupName); err != nil {
			return err
		}
	}
	return nil
}

func makeCgroup(h, rel string) error {
	dir := filepath.Join(h, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
		if cur, err := os.ReadFile(filepath.Join(dir, f)); err == nil && strings.TrimSpace(string(cur)) == "" {
			parent, _ := os.ReadFile(filepath.Join(filepath.Dir(dir), f))
			if err := os.WriteFile(filepath.Join(dir, f), parent, 0o644); err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(dir, f), err)
			}
		}
	}
	return nil
}

// joinCgroup moves pid into the cluster's cgroup for name, in every
// hierarchy.
func joinCgroup(name string, pid int) error {
	hs, err := hierarchies()
	if err != nil {
		return err
	}
	for _, h := range hs {
		rel := filepath.Join(cgroupName, name)
		if err := makeCgroup(h, rel); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(h, rel, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(h, rel), err)
		}
	}
	return nil
}

// cgroupPids are the processes in the cluster's cgroups (those under
// the sub-cgroups named, if any), in any hierarchy.
func cgroupPids(under ...string) []int {
	roots := []string{cgroupName}
	if len(under) > 0 {
		roots = nil
		for _, u := range under {
			roots = append(roots, filepath.Join(cgroupName, u))
		}
	}
	hs, _ := hierarchies()
	seen := map[int]bool{}
	var pids []int
	for _, h := range hs {
		for _, r := range roots {
			filepath.WalkDir(filepath.Join(h, r), func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
					return nil
				}
				raw, _ := os.ReadFile(p)
				for _, f := range strings.Fields(string(raw)) {
					if pid, err := strconv.Atoi(f); err == nil && !seen[pid] {
						seen[pid] = true
						pids = append(pids, pid)
					}
				}
				return nil
			})
		}
	}
	return pids
}

// sweep kills every process left in the cluster's cgroups and removes
// them, deepest first. It says what it could not remove.
func sweep() (killed int, err error) {
	for try := 0; try < 50; try++ {
		pids := cgroupPids()
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			if syscall.Kill(pid, syscall.SIGKILL) == nil && try == 0 {
				killed++
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	hs, _ := hierarchies()
	var left []string
	for _, h := range hs {
		var dirs []string
		filepath.WalkDir(filepath.Join(h, cgroupName), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			var rmErr error
			for try := 0; try < 20; try++ {
				if rmErr = syscall.Rmdir(dirs[i]); rmErr == nil || os.IsNotExist(rmErr) {
					rmErr = nil
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if rmErr != nil {
				left = append(left, dirs[i])
			}
		}
	}
	if len(left) > 0 {
		return killed, fmt.Errorf("cgroups not removed: %s", strings.Join(left, ", "))
	}
	return killed, nil
}
