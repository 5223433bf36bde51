package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"
)

// backgroundRun is `imbench run` going on while the test looks at it, or
// does something to the stack under it.
type backgroundRun struct {
	cmd  *exec.Cmd
	out  *lockedBuffer
	done chan struct{} // closed when it has exited
	err  error
}

// startBackground starts bin (imbench) with args in dir, in its own
// process group; whatever happens, the test's end stops it and what it started.
func startBackground(t *testing.T, bin, dir string, env []string, args ...string) *backgroundRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r := &backgroundRun{cmd: cmd, out: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = r.out, r.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.err = cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		// imbench stops gracefully on SIGINT (the summary is still written); then anything
		// left in the group is killed.
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
			select {
			case <-r.done:
			default:
				syscall.Kill(-cmd.Process.Pid, sig)
				select {
				case <-r.done:
				case <-time.After(30 * time.Second):
				}
			}
		}
	})
	return r
}

// waitFor returns the first match of re in the run's output, waiting up to
// limit; nil if the run ended or the time ran out first.
func (r *backgroundRun) waitFor(re *regexp.Regexp, limit time.Duration) []string {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(r.out.String()); m != nil {
			return m
		}
		select {
		case <-r.done:
			return re.FindStringSubmatch(r.out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// until polls cond every 100 ms until it holds; the run ending first, or
// the limit passing, fails the test.
func (r *backgroundRun) until(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); !cond(); time.Sleep(100 * time.Millisecond) {
		select {
		case <-r.done:
			t.Fatalf("the run ended before %s: %v\n%s", what, r.err, r.out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s", what, limit)
		}
	}
}

// ended waits up to limit for the run to end and returns its exit code
// and output.
func (r *backgroundRun) ended(t *testing.T, limit time.Duration) (int, string) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(limit):
		t.Fatalf("the run did not end within %s:\n%s", limit, r.out.String())
	}
	var ee *exec.ExitError
	switch {
	case errors.As(r.err, &ee):
		return ee.ExitCode(), r.out.String()
	case r.err != nil:
		t.Fatalf("run: %v\n%s", r.err, r.out.String())
	}
	return 0, r.out.String()
}

// wait waits for the run to end, which must be with exit code 0, and
// returns its output.
func (r *backgroundRun) wait(t *testing.T) string {
	t.Helper()
	code, out := r.ended(t, 10*time.Minute)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	return out
}

// runID is the run's id as `imbench run` printed it.
func (r *backgroundRun) runID(t *testing.T) string {
	t.Helper()
	m := regexp.MustCompile(`imbench: run (\S+):`).FindStringSubmatch(r.out.String())
	if m == nil {
		t.Fatalf("no run id in %s", r.out.String())
	}
	return m[1]
}

// lockedBuffer is a bytes.Buffer written by a child's output and read by the
// test at the same time.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
