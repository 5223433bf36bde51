package bench

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A process the bench started ends when the bench ends without stopping
// it: here a helper (this test binary) starts a sleep, prints its pid and
// exits at once.
func TestStartedProcessesEndWithTheBench(t *testing.T) {
	if os.Getenv("IMBENCH_ENDS_WITH_BENCH_HELPER") == "1" {
		cmd := exec.Command("sleep", "30")
		endsWithBench(cmd)
		if err := cmd.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(cmd.Process.Pid)
		os.Exit(0) // no Wait, no stop: as a bench killed
	}
	helper := exec.Command(os.Args[0], "-test.run=^TestStartedProcessesEndWithTheBench$")
	helper.Env = append(os.Environ(), "IMBENCH_ENDS_WITH_BENCH_HELPER=1")
	out, err := helper.Output()
	if err != nil {
		t.Fatalf("helper: %v %s", err, out)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("helper said %q", out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(stat), ") Z ") {
			break // ended, a zombie of init's until reaped
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the process outlived the bench that started it by 5 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
