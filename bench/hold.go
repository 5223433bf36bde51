package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

type holdResult struct {
	Tool                  string  `json:"tool"`
	UsersPlanned          int     `json:"users_planned"`
	UsersHeld             int64   `json:"users_held"` // connections the target held at once
	RSSBytes              int64   `json:"rss_bytes"`
	RSSPerUserBytes       float64 `json:"rss_per_user_bytes"`
	CPUPer1000UsersPerSec float64 `json:"cpu_seconds_per_1000_users_per_second"`
	HeartbeatTimeouts     int64   `json:"heartbeat_timeouts"`
	ConnectErrors         int64   `json:"connect_errors"` // as the tool counted them
	Disconnects           int64   `json:"disconnects"`    // connections lost while held, as the tool counted them
	SecondsToOnline       float64 `json:"seconds_to_online"`
	HeldSeconds           float64 `json:"held_seconds"`
	Processes             int     `json:"processes"` // the tool's, sampled
	OpenFiles             int     `json:"open_files"`
}

// measureHold samples the tool's processes while users are held: once the
// target holds want connections, RSS and CPU over the next 30 s.
func measureHold(bt *benchTarget, want int, pids func() []int, res *holdResult, began time.Time, done chan error) error {
	online := func() bool { return int(metric(bt.metrics, "imbench_target_connections")) >= want }
	if !waitFor(15*time.Minute, func() bool {
		select {
		case err := <-done:
			done <- err
			return true
		default:
		}
		return online()
	}) || !online() {
		res.UsersHeld = int64(metric(bt.metrics, "imbench_target_connections"))
		return fmt.Errorf("the target holds %d of %d users", res.UsersHeld, want)
	}
	res.SecondsToOnline = round2(time.Since(began).Seconds())
	time.Sleep(5 * time.Second) // settle: logins' garbage collected, pings under way
	p := pids()
	s1, s2, err := sampleWindow(p, 30*time.Second, nil)
	if err != nil {
		return err
	}
	res.UsersHeld = int64(metric(bt.metrics, "imbench_target_connections"))
	res.RSSBytes = max(s1.rss, s2.rss)
	res.RSSPerUserBytes = round2(float64(res.RSSBytes) / float64(res.UsersHeld))
	res.CPUPer1000UsersPerSec = round6((s2.cpu - s1.cpu) / s2.at.Sub(s1.at).Seconds() / (float64(res.UsersHeld) / 1000))
	res.Processes, res.OpenFiles = len(p), s2.fds
	return nil
}

func (b *bench) holdOurs(users int, protocol string) (*holdResult, error) {
	fmt.Printf("imbench bench: density: one imbench run process holding %d users for %s over %s\n", users, b.hold, protocol)
	bt, err := startTargets(0)
	if err != nil {
		return nil, err
	}
	defer bt.stop()
	res := &holdResult{Tool: "imbench run, " + protocol, UsersPlanned: users}
	began := time.Now()
	run, err := b.runScenario(bt, "openim/hold", protocol, 1, map[string]string{"IM_USERS": strconv.Itoa(users),
		"IM_HOLD": b.hold.String(), "IM_SCALE": "1"})
	if err != nil {
		return nil, err
	}
	err = measureHold(bt, users, run.pids, res, began, run.done)
	if rerr := <-run.done; err == nil {
		err = rerr
	}
	res.HeldSeconds = b.hold.Seconds()
	res.HeartbeatTimeouts = int64(metric(bt.metrics, "imbench_target_heartbeat_timeouts_total"))
	if sum, serr := summary.Load(filepath.Join(b.resultsDir, run.id, "summary.json")); serr == nil {
		res.ConnectErrors, res.Disconnects = sum.Users.ConnectErrors, sum.Users.Disconnects
	}
	return res, err
}

// sampleEach samples each of pids still running; a process gone is left out.
func sampleEach(pids []int) map[int]procSample {
	out := map[int]procSample{}
	for _, pid := range pids {
		if s, err := sampleProc(pid); err == nil {
			out[pid] = s
		}
	}
	return out
}

// sumSamples adds samples up: RSS, files and threads of every one, CPU of those
// whose pid is in only (all when only is nil).
func sumSamples(m map[int]procSample, only map[int]procSample, at time.Time) procSample {
	t := procSample{at: at}
	for pid, s := range m {
		t.rss, t.fds, t.threads = t.rss+s.rss, t.fds+s.fds, t.threads+s.threads
		if _, ok := only[pid]; ok || only == nil {
			t.cpu += s.cpu
		}
	}
	return t
}

// sampleWindow samples pids now and again after d, calling mark (if not
// nil) right after each sample. RSS, files and threads are of the
// processes running at each moment; CPU is of those running at both, so
// that a process that ends (or a pid that was never the run's) cannot make
// the difference negative.
func sampleWindow(pids []int, d time.Duration, mark func()) (first, last procSample, err error) {
	at1 := time.Now()
	a := sampleEach(pids)
	if len(a) == 0 {
		return first, last, fmt.Errorf("none of the processes %v to sample is running", pids)
	}
	if mark != nil {
		mark()
	}
	time.Sleep(d)
	at2 := time.Now()
	z := sampleEach(pids)
	if mark != nil {
		mark()
	}
	if len(z) == 0 {
		return first, last, fmt.Errorf("the processes %v ended while sampled", pids)
	}
	return sumSamples(a, z, at1), sumSamples(z, a, at2), nil
}

// runProcesses lists the processes of the generator run runID whose first
// process is root: root itself, every imbench process descended from it
// (a segmented run's children, whatever their command lines), and any
// other imbench process whose command line names the run (-run-id ID).
// Not the bench, nor the helpers a run may start for a moment (git).
func runProcesses(root int, runID string) []int {
	type proc struct {
		ppid int
		comm string
		args []string
	}
	procs := map[int]proc{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		lp, rp := strings.IndexByte(string(stat), '('), strings.LastIndexByte(string(stat), ')')
		if lp < 0 || rp < lp {
			continue
		}
		f := strings.Fields(string(stat[rp+1:])) // state, ppid, …
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		raw, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		procs[pid] = proc{ppid: ppid, comm: string(stat[lp+1 : rp]), args: strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")}
	}
	namesRun := func(args []string) bool {
		for i, a := range args {
			a = strings.TrimPrefix(a, "-")
			if a == "-run-id="+runID || a == "run-id="+runID || (a == "run-id" || a == "-run-id") && i+1 < len(args) && args[i+1] == runID {
				return true
			}
		}
		return false
	}
	// Descendants of root, through any process in between.
	under := map[int]bool{root: true}
	for grew := true; grew; {
		grew = false
		for pid, p := range procs {
			if !under[pid] && under[p.ppid] {
				under[pid], grew = true, true
			}
		}
	}
	var out []int
	for pid, p := range procs {
		if pid == root || p.comm == "imbench" && (under[pid] || namesRun(p.args)) {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}
