package procgroup

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/profile"
)

// The owner of a listening port is found by the port, not by its name: of
// two processes listening, only the one on the run's port; named by the
// profile group that selects it, else by its comm.
func TestListenOwnersFindsTheProcessOnThePort(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp")
	}
	mine, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	// Another process listening on another port: not the run's.
	other := exec.Command("python3", "-c", "import socket,time;s=socket.socket();s.bind(('127.0.0.1',0));s.listen();time.sleep(30)")
	if err := other.Start(); err == nil {
		defer func() { other.Process.Kill(); other.Wait() }()
	}
	port := mine.Addr().(*net.TCPAddr).Port
	owners, err := ListenOwners([]int{port}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(owners) != 1 || owners[0].PID != os.Getpid() || len(owners[0].Ports) != 1 || owners[0].Ports[0] != port {
		t.Fatalf("owners of %d: %+v (this process is %d)", port, owners, os.Getpid())
	}
	comm, _ := os.ReadFile("/proc/self/comm")
	if owners[0].Component != string(comm[:len(comm)-1]) {
		t.Errorf("unnamed by a profile: %q, want its comm %q", owners[0].Component, comm)
	}
	named, err := ListenOwners([]int{port}, []profile.Process{{Group: "the-server", Cmdline: []string{`procgroup\.test`}}})
	if err != nil || len(named) != 1 || named[0].Component != "the-server" {
		t.Fatalf("named by the profile: %+v %v", named, err)
	}
	// /proc counts CPU in ticks: a test this short may not have used one
	// yet; work until it has (a second at most).
	var m TreeMeter
	usage := func() (float64, float64, bool) {
		u, ok := m.Usage([]int{os.Getpid()})[os.Getpid()]
		return u.CPUSeconds, u.MemBytes, ok
	}
	cpu, mem, ok := usage()
	for end := time.Now().Add(time.Second); ok && cpu <= 0 && time.Now().Before(end); {
		for i := 0; i < 1e6; i++ {
			_ = fmt.Sprint(i)[0]
		}
		cpu, mem, ok = usage()
	}
	if !ok || cpu <= 0 || mem <= 0 {
		t.Fatalf("usage: %v s, %v bytes, %v", cpu, mem, ok)
	}
	if none, err := ListenOwners([]int{1}, nil); err != nil || len(none) != 0 {
		t.Fatalf("port 1: %+v %v", none, err)
	}
}

// A process's allowed CPUs are read from its status: this one's match
// what the kernel says its affinity is.
func TestAllowedCPUs(t *testing.T) {
	n := allowedCPUs("/proc/self")
	if n < 1 || n > runtime.NumCPU() {
		t.Fatalf("allowed CPUs %d on a machine of %d", n, runtime.NumCPU())
	}
	if allowedCPUs("/proc/nonexistent") != 0 {
		t.Fatal("a process gone has CPUs")
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return
	}
	pinned := exec.Command("taskset", "-c", "0", "sleep", "10")
	if err := pinned.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { pinned.Process.Kill(); pinned.Wait() }()
	for i := 0; i < 50 && allowedCPUs(fmt.Sprintf("/proc/%d", pinned.Process.Pid)) != 1; i++ {
		time.Sleep(20 * time.Millisecond) // taskset sets the affinity, then becomes sleep
	}
	if n := allowedCPUs(fmt.Sprintf("/proc/%d", pinned.Process.Pid)); n != 1 {
		t.Fatalf("a process under taskset -c 0 may run on %d CPUs", n)
	}
}
