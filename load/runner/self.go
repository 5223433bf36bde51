package runner

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// processCPUSeconds is this process's user and system CPU so far.
func processCPUSeconds() (float64, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9, nil
}

// processRSSBytes is this process's resident memory (/proc/self/statm's
// second field, in pages).
func processRSSBytes() (float64, error) {
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	f := bytes.Fields(raw)
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/self/statm: %q", raw)
	}
	pages, err := strconv.ParseFloat(string(f[1]), 64)
	return pages * float64(os.Getpagesize()), err
}
