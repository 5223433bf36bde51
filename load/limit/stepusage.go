package limit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/procgroup"
	"github.com/imbench/imbench/load/runner"
)

// stepOf reads a step's figures off its summary.
func stepOf(n int, asked float64, runID string, s summary.Summary, dim string) Step {
	m, d := s.Messages, s.Deliveries
	st := Step{N: n, Asked: asked, RunID: runID, Summary: s, Expected: d.Expected, Lost: d.Lost, Late: d.Late, Unchecked: d.Unchecked, Unanswered: m.Unanswered,
		Unsent: m.Unsent, Online: s.Users.OnlinePeak,
		E2EP50: s.Latency.E2E.P50, E2EP99: s.Latency.E2E.P99, AckAvg: s.Latency.Ack.Avg, AckP50: s.Latency.Ack.P50, AckP99: s.Latency.Ack.P99}
	secs := float64(m.LastSendMs-m.FirstSendMs) / 1000
	if secs > 0 {
		st.Achieved = float64(m.Sent) / secs
		st.Acked = float64(m.Acked) / secs
		st.Deliveries = float64(d.Received) / secs
		// The search raises the open classes' rate: what it put out is
		// theirs; a closed class's sends, as fast as answered, are beside it.
		var closed int64
		for _, c := range m.ByClass {
			if !c.Open {
				closed += c.Sent
			}
		}
		if closed > 0 {
			st.Closed = float64(closed) / secs
			st.Achieved = float64(m.Sent-closed) / secs
		}
	}
	if dim == "users" {
		st.Achieved = float64(s.Users.OnlinePeak)
	}
	if l := s.Logins; l != nil {
		st.LoginP50, st.LoginP99 = l.TimeToOnline.P50, l.TimeToOnline.P99
	}
	return st
}

// stepWindow is what a step's usage is read over: its sending, or the run.
func stepWindow(s summary.Summary, dim string) (time.Time, time.Time) {
	m := s.Messages
	if dim == "rate" && m.LastSendMs > m.FirstSendMs {
		return time.UnixMilli(m.FirstSendMs), time.UnixMilli(m.LastSendMs)
	}
	return s.StartedAt, s.EndedAt
}

// RemoteUsage reads a window's usage from elsewhere than this machine's
// /proc (Prometheus' series of the resource table); nil where it cannot.
type RemoteUsage func(ctx context.Context, s summary.Summary, from, to time.Time) []Usage

// UsageOver is the server's parts' CPU and memory over a window of run s,
// sampled from /proc here every second where the server runs on this
// machine (per process, which a group's sum cannot tell: its busiest
// process); else remote's (where not nil). The generator's own row is
// left out: its CPU is measured apart.
func UsageOver(ctx context.Context, sampler *procgroup.Sampler, roles map[string]string, remote RemoteUsage, s summary.Summary, from, to time.Time) []Usage {
	var out []Usage
	local := false
	for _, u := range sampler.Window(from, to) {
		role := roles[u.Group]
		if role == "" || role == "generator" {
			continue
		}
		local = local || role == "target"
		out = append(out, Usage{Component: u.Group, Role: role, Processes: u.Processes, PIDs: u.PIDs, Others: u.Others,
			OpenFiles: u.FDPeak, OpenFilesLimit: u.FDLimit, CPUs: pinned(u.CPUs), CPUSet: pinnedSet(u.CPUSet), CPUAvg: u.CPUAvg, CPUPeak: u.CPUPeak,
			CPUBusiest: u.CPUBusiest, CPUBusiestThread: u.CPUBusiestThread,
			ThreadRunnable: u.ThreadRunnable, ThreadWaiting: u.ThreadWaiting, RSSAvg: u.RSSAvg, RSSPeak: u.RSSPeak, RSSGrowth: u.RSSGrown})
	}
	if local || remote == nil {
		return out
	}
	if r := remote(ctx, s, from, to); len(r) > 0 {
		return r
	}
	return out
}

// pinned is a part's allowed CPUs where fewer than the machine's, else 0.
func pinned(cpus int) int {
	if cpus >= procgroup.MachineCores() {
		return 0
	}
	return cpus
}

// pinnedSet is a part's CPU list where it names fewer than the machine's
// CPUs, else "".
func pinnedSet(list string) string {
	if pinned(procgroup.CountCPUs(list)) == 0 {
		return ""
	}
	return list
}

// measuredLine says which processes the search measures as the target:
// the owners of the run's ports, and how many of their name it leaves to
// the machine ("" for a target not on this machine).
func measuredLine(s *procgroup.Sampler, ports []int) string {
	owners := s.Owners()
	if len(owners) == 0 {
		return ""
	}
	var parts []string
	for _, o := range owners {
		parts = append(parts, fmt.Sprintf("%s (PID %d)", o.Component, o.PID))
	}
	var nums []string
	for _, p := range ports {
		nums = append(nums, strconv.Itoa(p))
	}
	line := fmt.Sprintf("the target measured: %s, listening on the run's ports %s", strings.Join(parts, ", "), strings.Join(nums, ", "))
	if others := s.OthersOfName(); others > 0 {
		line += fmt.Sprintf("; %d other %s of that name on this machine %s as the machine", others, plural(others, "process", "processes"), plural(others, "counts", "count"))
	}
	return line
}

// leftBy is what a step's clean-up left on its target, from its
// teardown.json ("" when it removed all it could, or wrote none).
func leftBy(dir string) string {
	rec, err := runner.ReadTeardown(dir)
	if err != nil {
		return ""
	}
	return runner.LeftText(rec.Removed)
}
