package procgroup

import (
	"bufio"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/testmachine"
)

// TestForkingServerHelper is not a test: run by TestAServersForkedChildrenAreItsCPU
// as a server that, as PostgreSQL does per connection, forks a short-lived
// CPU-busy process again and again, reaping each, for at most 30 s.
func TestForkingServerHelper(t *testing.T) {
	if os.Getenv("PROCGROUP_FORKING_SERVER") != "1" {
		t.Skip("the helper of TestAServersForkedChildrenAreItsCPU")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	fmt.Println(l.Addr().(*net.TCPAddr).Port)
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
		exec.Command("sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done").Run()
		time.Sleep(20 * time.Millisecond)
	}
}

// startHelper starts a forking server and returns it with its port.
func startHelper(t *testing.T) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestForkingServerHelper$")
	cmd.Env = append(os.Environ(), "PROCGROUP_FORKING_SERVER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	port, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the helper said %q", line)
	}
	return cmd, port
}

// A group that names its port is the process on it and that process's
// tree, whatever their names; another process of the group's name on the
// host is not in its row.
func TestAGroupsPortsMakeItsRow(t *testing.T) {
	testmachine.Shared(t)
	ours, port := startHelper(t)
	theirs, _ := startHelper(t)
	comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", ours.Process.Pid))
	groups := []profile.Process{{Group: "db", Comm: []string{strings.TrimSpace(string(comm)), "nomatch"}, Ports: []int{port}}}
	owners, err := ListenOwners([]int{port}, []profile.Process{{Group: "db", Comm: []string{"nomatch"}, Ports: []int{port}}})
	if err != nil || len(owners) != 1 || owners[0].Component != "db" || owners[0].PID != ours.Process.Pid {
		t.Fatalf("the port's owner, named by the group that names the port: %+v %v", owners, err)
	}
	from := time.Now()
	s, err := Start(groups, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	time.Sleep(500 * time.Millisecond)
	s.sample()
	var row *Usage
	for _, u := range s.Window(from, time.Now()) {
		if u.Group == "db" {
			row = &u
		}
	}
	if row == nil || !slices.Contains(row.PIDs, ours.Process.Pid) || slices.Contains(row.PIDs, theirs.Process.Pid) || row.Others == 0 {
		t.Fatalf("the row of the process on port %d (%d), not the other of its name (%d): %+v", port, ours.Process.Pid, theirs.Process.Pid, row)
	}
}

// treeCPU is /proc's own account of a process and its children: its own
// CPU seconds, its reaped children's, and its live children's own.
func treeCPU(t *testing.T, pid int) float64 {
	t.Helper()
	stat := func(p int) []string {
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
		if err != nil {
			return nil
		}
		s := string(raw)
		return strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	}
	ticks := func(f []string, k ...int) (n float64) {
		for _, i := range k {
			v, _ := strconv.ParseFloat(f[i], 64)
			n += v
		}
		return n / clockTicks
	}
	f := stat(pid)
	if f == nil {
		t.Fatalf("server %d is gone", pid)
	}
	total := ticks(f, 11, 12, 13, 14)
	children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, c := range strings.Fields(string(children)) {
		cp, _ := strconv.Atoi(c)
		if cf := stat(cp); cf != nil {
			total += ticks(cf, 11, 12)
		}
	}
	return total
}

// A server part that forks short-lived CPU-busy processes is measured
// whole: its row (the sampler's, for a limit search or a comparison, and
// the run's pushed counter, for the report) equals /proc's account of it,
// the exited children's time included, within 2 points of a core. Its
// listening process alone would show a few per cent.
func TestAServersForkedChildrenAreItsCPU(t *testing.T) {
	testmachine.Shared(t)
	cmd, port := startHelper(t)
	pid := cmd.Process.Pid
	comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	s, err := Start([]profile.Process{{Group: "pgfake", Comm: []string{strings.TrimSpace(string(comm))}}}, time.Hour, port)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	var m TreeMeter
	time.Sleep(time.Second) // the forks under way

	from := time.Now()
	ref1, meter1 := treeCPU(t, pid), m.Usage([]int{pid})[pid].CPUSeconds
	s.sample()
	time.Sleep(6 * time.Second)
	s.sample()
	ref2, meter2, to := treeCPU(t, pid), m.Usage([]int{pid})[pid].CPUSeconds, time.Now()
	ref := 100 * (ref2 - ref1) / to.Sub(from).Seconds()

	var row *Usage
	for _, u := range s.Window(from, to) {
		if u.Group == "pgfake" {
			row = &u
		}
	}
	if row == nil || !slices.Contains(row.PIDs, pid) {
		t.Fatalf("no row for the server %d: %+v", pid, row)
	}
	t.Logf("/proc's account %.1f %% of a core; the sampler's row %.1f %% (%v processes), the pushed counter %.1f %%",
		ref, row.CPUAvg, row.Processes, 100*(meter2-meter1)/to.Sub(from).Seconds())
	if ref < 20 {
		t.Fatalf("the server's tree used %.1f %% of a core: too little to tell", ref)
	}
	if math.Abs(row.CPUAvg-ref) > 2 {
		t.Errorf("sampler: %.1f %% of a core, /proc's account %.1f %%", row.CPUAvg, ref)
	}
	if got := 100 * (meter2 - meter1) / to.Sub(from).Seconds(); math.Abs(got-ref) > 2 {
		t.Errorf("pushed counter: %.1f %% of a core, /proc's account %.1f %%", got, ref)
	}
}

// A server pinned to one core (taskset) may use one: the per-core rates
// divide by its CPUs, not the machine's.
func TestAPinnedServerHasItsCores(t *testing.T) {
	testmachine.Shared(t)
	if MachineCores() < 2 {
		t.Skip("one CPU: nothing to pin to")
	}
	cmd, port := startHelper(t)
	if n := ServingCPUs([]int{port}); n != CountCPUs(cpuList("/proc/self")) {
		t.Fatalf("unpinned: %d CPUs, this process may use %s", n, cpuList("/proc/self"))
	}
	var one unix.CPUSet
	one.Set(0)
	if err := unix.SchedSetaffinity(cmd.Process.Pid, &one); err != nil {
		t.Skip("cannot pin here:", err)
	}
	if n := ServingCPUs([]int{port}); n != 1 {
		t.Fatalf("pinned to CPU 0: %d CPUs", n)
	}
}
