package procgroup

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
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

// Threads that would each fill a core, three to a core: each runs about a
// third of the window and waits for a core the rest, which the run-queue
// times show (a part at its limit on a busy machine shows less than a
// core of CPU, and never idles).
func TestThreadRunnable(t *testing.T) {
	comm, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Skip("no /proc")
	}
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		t.Skip("no run-queue times (schedstat)")
	}
	n := 3 * MachineCores()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n + 2))
	s, err := Start([]profile.Process{{Group: "self", Comm: []string{strings.TrimSpace(string(comm))}}}, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	end := time.Now().Add(1500 * time.Millisecond)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			for time.Now().Before(end) {
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	from := time.Now()
	time.Sleep(time.Second)
	to := time.Now()
	wg.Wait()
	s.Stop()
	u := s.Window(from, to)
	if len(u) != 1 {
		t.Fatalf("usage %+v", u)
	}
	if u[0].CPUBusiestThread > 80 || u[0].ThreadRunnable < 90 || u[0].ThreadWaiting < 20 || u[0].ThreadWaiting > u[0].ThreadRunnable {
		t.Fatalf("%d spinning threads on %d cores: busiest thread %.0f %% of a core; least idle running or waiting %.0f %% (waiting %.0f %%)",
			n, MachineCores(), u[0].CPUBusiestThread, u[0].ThreadRunnable, u[0].ThreadWaiting)
	}
}

// The machine's cores are all its CPUs, never fewer than this process may
// run on (runtime.NumCPU, which a taskset narrows).
func TestMachineCores(t *testing.T) {
	if n := MachineCores(); n < runtime.NumCPU() {
		t.Fatalf("machine cores %d, fewer than the %d this process may use", n, runtime.NumCPU())
	}
}

// A group's CPU set is the affinity all its processes share: "0" for two
// processes under taskset -c 0, none where one of them may run anywhere.
func TestGroupCPUSet(t *testing.T) {
	if _, err := exec.LookPath("taskset"); err != nil || MachineCores() < 2 {
		t.Skip("no taskset, or one core")
	}
	window := func(args ...[]string) Usage {
		t.Helper()
		for _, a := range args {
			p := exec.Command(a[0], a[1:]...)
			if err := p.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { p.Process.Kill(); p.Wait() }()
		}
		time.Sleep(100 * time.Millisecond) // taskset sets the affinity, then becomes sleep
		s, err := Start([]profile.Process{{Group: "sleepers", Cmdline: []string{`^sleep 9\.7[12]`}}}, 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		from := time.Now()
		time.Sleep(300 * time.Millisecond)
		s.Stop()
		u := s.Window(from, time.Now())
		if len(u) != 1 || u[0].Processes != 2 {
			t.Fatalf("usage %+v", u)
		}
		return u[0]
	}
	if u := window([]string{"taskset", "-c", "0", "sleep", "9.71"}, []string{"taskset", "-c", "0", "sleep", "9.72"}); u.CPUSet != "0" {
		t.Fatalf("pinned together: CPU set %q", u.CPUSet)
	}
	if u := window([]string{"taskset", "-c", "0", "sleep", "9.71"}, []string{"sleep", "9.72"}); u.CPUSet != "" {
		t.Fatalf("one pinned, one not: CPU set %q", u.CPUSet)
	}
}

// /proc/stat's all-cores line: steal is busy and told apart; guest time,
// which user already counts, is not counted twice.
func TestMachineLineSteal(t *testing.T) {
	m, ok := parseMachine("cpu  1000 10 300 8000 50 0 40 600 200 0")
	if !ok || m.total != 10000 || m.busy != 1950 || m.steal != 600 {
		t.Fatalf("%+v %v", m, ok)
	}
	if _, ok := parseMachine("intr 1 2 3"); ok {
		t.Fatal("not the cpu line")
	}
}

// A process pinned to one CPU reads at most a core, a thread at most the
// whole window, however its counters fell against the samples' times.
func TestFiguresAreClampedToWhatIsPossible(t *testing.T) {
	u := Usage{CPUSet: "1", CPUAvg: 101, CPUPeak: 114, CPUBusiest: 102, CPUBusiestThread: 103, ThreadRunnable: 117, ThreadWaiting: 118}
	u.clamp()
	if u.CPUAvg != 100 || u.CPUPeak != 100 || u.CPUBusiest != 100 || u.CPUBusiestThread != 100 || u.ThreadRunnable != 100 || u.ThreadWaiting != 100 {
		t.Fatalf("clamped %+v", u)
	}
}

// A group of processes that share their memory (the libraries of four
// sleeps here; a PostgreSQL's buffers in a real server) counts it once:
// each process's proportional share, not each one's whole resident set.
func TestSharedMemoryCountsOnce(t *testing.T) {
	if _, err := os.Stat("/proc/self/smaps_rollup"); err != nil {
		t.Skip("no smaps_rollup here")
	}
	var rss float64
	for i := range 4 {
		p := exec.Command("sleep", fmt.Sprintf("9.8%d", i))
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { p.Process.Kill(); p.Wait() }()
		time.Sleep(50 * time.Millisecond)
		_, r, _ := readProc(fmt.Sprintf("/proc/%d", p.Process.Pid))
		rss += r
	}
	s, err := Start([]profile.Process{{Group: "sleepers", Cmdline: []string{`^sleep 9\.8[0-3]`}}}, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	from := time.Now()
	time.Sleep(300 * time.Millisecond)
	s.Stop()
	u := s.Window(from, time.Now())
	if len(u) != 1 || u[0].Processes != 4 || u[0].RSSAvg <= 0 || u[0].RSSAvg > 0.75*rss {
		t.Fatalf("usage %+v; the four resident sets add up to %.0f bytes", u, rss)
	}
}
