package runner

import (
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/cpulimit"
)

// selfUsage is this process's CPU and its quota's account at the start of
// its run, to say at its end what it spent and how far the quota held it
// back (a pod under a CPU limit).
type selfUsage struct {
	cpu      time.Duration
	throttle cpulimit.Throttle
	quota    bool
}

func ownCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startSelfUsage() selfUsage {
	t, ok := cpulimit.OwnThrottle()
	return selfUsage{cpu: ownCPU(), throttle: t, quota: ok}
}

// process is the run's row of this process.
func (u selfUsage) process(segment string) summary.GeneratorProcess {
	l := cpulimit.Own()
	host, _ := os.Hostname()
	if pod := os.Getenv("IMBENCH_POD"); pod != "" { // set by kube's Jobs
		host = "pod " + pod + " on " + host
	}
	p := summary.GeneratorProcess{Segment: segment, Host: host, CPUSeconds: (ownCPU() - u.cpu).Seconds(),
		Cores: l.Cores, Bound: l.Why, QuotaCores: l.Quota}
	if t, ok := cpulimit.OwnThrottle(); ok && u.quota {
		p.Throttled = t.Share(u.throttle)
	}
	return p
}
