package bench

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// busyError is a point that failed for the machine's sake, not the
// generator's or the target's: a bare floor client's connection ended, or
// a run crossed no threshold but its pace. Another try may measure it.
type busyError struct{ err error }

func (e busyError) Error() string { return e.err.Error() }
func (e busyError) Unwrap() error { return e.err }

func isBusy(err error) bool {
	var b busyError
	return errors.As(err, &b)
}

// busyTries is how often a point that failed for the machine's sake is
// measured before it is marked not measured.
const busyTries = 3

// retryBusy measures a point up to busyTries times while it fails for the
// machine's sake; any other failure ends it at once.
func retryBusy[T any](what string, measure func() (T, error)) (T, error) {
	var v T
	var err error
	for try := 1; try <= busyTries; try++ {
		if v, err = measure(); err == nil || !isBusy(err) {
			return v, err
		}
		fmt.Printf("imbench bench: %s: %v (the machine was busy; try %d of %d)\n", what, err, try, busyTries)
	}
	return v, err
}

// notMeasured is what a point's place in the table says when every try
// failed for the machine's sake.
func notMeasured(err error) string { return "not measured: the machine was busy (" + err.Error() + ")" }

// onlyPaceCrossed reports a run's output whose one failure was its pace:
// its thresholds-crossed line names send_pace alone.
func onlyPaceCrossed(output string) bool {
	const lead = "imbench: thresholds crossed: "
	i := strings.LastIndex(output, lead)
	if i < 0 {
		return false
	}
	line, _, _ := strings.Cut(output[i+len(lead):], "\n")
	for _, c := range strings.Split(line, ", ") {
		if !strings.HasPrefix(c, "send_pace ") && !strings.HasPrefix(c, "send_pace{") {
			return false
		}
	}
	return true
}

// tail keeps the last bytes written to it: what a child said last, to
// tell why it failed, while its output still goes to the terminal.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 16 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if n := len(t.buf); n > tailBytes {
		t.buf = append(t.buf[:0], t.buf[n-tailBytes:]...)
	}
	t.mu.Unlock()
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
