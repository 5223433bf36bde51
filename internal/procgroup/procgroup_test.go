package procgroup

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/profile"
)

// A thread spinning in this process shows as the group's busiest thread,
// apart from the process's threads that idle.
func TestBusiestThread(t *testing.T) {
	comm, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Skip("no /proc")
	}
	s, err := Start([]profile.Process{{Group: "self", Comm: []string{strings.TrimSpace(string(comm))}}}, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	from := time.Now()
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		for end := time.Now().Add(time.Second); time.Now().Before(end); {
		}
		close(done)
	}()
	<-done
	s.Stop()
	u := s.Window(from, time.Now())
	if len(u) != 1 || u[0].Processes != 1 {
		t.Fatalf("usage %+v", u)
	}
	if u[0].CPUBusiestThread < 40 || u[0].CPUBusiestThread > u[0].CPUBusiest+1 || u[0].CPUBusiest > u[0].CPUAvg+1 {
		t.Fatalf("busiest thread %.0f %%, process %.0f %%, group %.0f %%", u[0].CPUBusiestThread, u[0].CPUBusiest, u[0].CPUAvg)
	}
	if s.MachineBusy(from, time.Now()) <= 0 {
		t.Fatal("the machine not busy while a thread spun")
	}
}

// The machine's cores are all its CPUs, never fewer than this process may
// run on (runtime.NumCPU, which a taskset narrows).
func TestMachineCores(t *testing.T) {
	if n := MachineCores(); n < runtime.NumCPU() {
		t.Fatalf("machine cores %d, fewer than the %d this process may use", n, runtime.NumCPU())
	}
}
