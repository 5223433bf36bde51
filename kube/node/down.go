package node

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// stopOrder is every process Up starts, the node first.
var stopOrder = []string{"node", "kubelet", "containerd", "kube-scheduler", "kube-controller-manager", "kube-apiserver", "etcd"}

// pid is a component's PID from its pid file, if that process lives and
// is the cluster's: in its cgroup (a PID reused since by another process
// is never signalled).
func (c Cluster) pid(name string) (int, bool) {
	raw, err := os.ReadFile(c.pidFile(name))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || syscall.Kill(pid, 0) != nil {
		return 0, false
	}
	cg, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil || !strings.Contains(string(cg), "/"+cgroupName+"/") {
		return 0, false
	}
	return pid, true
}

// running names the components whose process lives.
func (c Cluster) running() []string {
	var out []string
	for _, name := range stopOrder {
		if pid, ok := c.pid(name); ok {
			out = append(out, fmt.Sprintf("%s %d", name, pid))
		}
	}
	return out
}

// Down stops every process of the cluster by its PID, then any process
// left in its cgroups (the pods' containers, the runtime's shims), removes
// its cgroups and the host folders it made, and checks that none of its
// processes, cgroups, mounts or ports is left.
func (c Cluster) Down(out io.Writer) error {
	stopped := 0
	for _, name := range stopOrder {
		pid, ok := c.pid(name)
		if !ok {
			continue
		}
		syscall.Kill(pid, syscall.SIGTERM)
		if !waitGone(pid, 20*time.Second) {
			syscall.Kill(pid, syscall.SIGKILL)
			waitGone(pid, 5*time.Second)
		}
		stopped++
		if name == "node" {
			killed, _ := sweepNode()
			stopped += killed
		}
	}
	killed, err := sweep()
	stopped += killed
	if err != nil {
		return err
	}
	if raw, err := os.ReadFile(filepath.Join(c.Dir, "made-dirs")); err == nil {
		for _, d := range strings.Fields(string(raw)) {
			if slices.Contains(hostDirs, d) {
				os.Remove(d) // only if empty: the host's own use of it stays
			}
		}
		os.Remove(filepath.Join(c.Dir, "made-dirs"))
	}
	os.RemoveAll(filepath.Join(c.Dir, "pids"))
	if left := c.Leftovers(); len(left) > 0 {
		return fmt.Errorf("left behind: %s", strings.Join(left, "; "))
	}
	fmt.Fprintf(out, "cluster: %d processes stopped; no process, cgroup, mount or port of the cluster is left\n", stopped)
	return nil
}

// sweepNode kills what the node left in its cgroups before the control
// plane stops: the pods, the shims.
func sweepNode() (int, error) {
	n := 0
	for _, pid := range cgroupPids("node", "kubepods") {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n, nil
}

// Leftovers lists what of the cluster is still on the host: a process in
// its cgroups, a cgroup, a mount of its folder, a port it listens on.
func (c Cluster) Leftovers() []string {
	var left []string
	if pids := cgroupPids(); len(pids) > 0 {
		left = append(left, fmt.Sprintf("processes %v", pids))
	}
	hs, _ := hierarchies()
	for _, h := range hs {
		if _, err := os.Stat(filepath.Join(h, cgroupName)); err == nil {
			left = append(left, "cgroup "+filepath.Join(h, cgroupName))
		}
	}
	if raw, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.Contains(line, c.Dir) {
				left = append(left, "mount "+line)
			}
		}
	}
	for _, port := range []int{etcdPort, etcdPeerPort, apiserverPort, kubeletPort, healthzPort, controllerPort, schedulerPort} {
		if conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond); err == nil {
			conn.Close()
			left = append(left, fmt.Sprintf("port %d", port))
		}
	}
	return left
}

func waitGone(pid int, limit time.Duration) bool {
	end := time.Now().Add(limit)
	for time.Now().Before(end) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// Status says what runs and whether the node is Ready.
func (c Cluster) Status(out io.Writer) (up bool) {
	run := c.running()
	if len(run) == 0 {
		fmt.Fprintln(out, "cluster: down")
		return false
	}
	fmt.Fprintf(out, "cluster: %s\n", strings.Join(run, ", "))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nodes, err := c.Kubectl(ctx, "get", "nodes", "-o", "wide")
	if err != nil {
		fmt.Fprintf(out, "cluster: the API server does not answer: %v\n", err)
		return false
	}
	fmt.Fprint(out, string(nodes))
	fmt.Fprintf(out, "KUBECONFIG=%s\n", c.Kubeconfig())
	return len(run) == len(stopOrder)
}
