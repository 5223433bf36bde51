package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// procSample is what /proc says about a process at one moment.
type procSample struct {
	at      time.Time
	rss     int64   // bytes
	cpu     float64 // user+system seconds since start
	fds     int
	threads int
}

const clockTicks = 100 // sysconf(_SC_CLK_TCK) on Linux

func sampleProc(pid int) (procSample, error) {
	s := procSample{at: time.Now()}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			s.rss = kb * 1024
		} else if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			s.threads, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return s, err
	}
	// Fields after the command name (which may hold spaces, in parentheses).
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	s.cpu = (utime + stime) / clockTicks
	if entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
		s.fds = len(entries)
	}
	return s, nil
}
