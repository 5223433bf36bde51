package awaiting

import (
	"errors"
	"slices"
	"testing"
	"time"
)

type fail struct {
	name string
	at   time.Duration
}

// Three requests 40 ms apart, each waiting 100 ms, the second answered:
// the first fails at its own 100 ms, the third at its own (after the timer
// armed again), the answered one never; a late Take finds nothing.
func TestEachFailsAtItsOwnTime(t *testing.T) {
	start := time.Now()
	failed := make(chan fail, 3)
	s := New[uint16](100*time.Millisecond, func(name string) { failed <- fail{name, time.Since(start)} })
	for i, name := range []string{"a", "b", "c"} {
		if err := s.Add(uint16(i+1), name); err != nil {
			t.Fatal(err)
		}
		time.Sleep(40 * time.Millisecond)
	}
	if v, ok := s.Take(2); !ok || v != "b" {
		t.Fatalf("take 2: %q %v", v, ok)
	}
	var got []fail
	for range 2 {
		select {
		case f := <-failed:
			got = append(got, f)
		case <-time.After(2 * time.Second):
			t.Fatalf("failed so far: %v", got)
		}
	}
	if got[0].name != "a" || got[0].at < 100*time.Millisecond || got[1].name != "c" || got[1].at < 180*time.Millisecond {
		t.Fatalf("failed: %v", got)
	}
	if _, ok := s.Take(1); ok {
		t.Fatal("a failed request taken")
	}
	select {
	case f := <-failed:
		t.Fatalf("also failed: %v", f)
	case <-time.After(150 * time.Millisecond):
	}
}

// Close gives what waited and fails nothing itself; nothing is added after
// it, and an ID in use is refused.
func TestCloseGivesWhatWaited(t *testing.T) {
	failed := make(chan string, 4)
	s := New[string](50*time.Millisecond, func(v int) { failed <- "expired" })
	if err := s.Add("x", 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("x", 2); !errors.Is(err, ErrBusy) {
		t.Fatalf("the same ID twice: %v", err)
	}
	if err := s.Add("y", 3); err != nil {
		t.Fatal(err)
	}
	left := s.Close()
	slices.Sort(left)
	if !slices.Equal(left, []int{1, 3}) {
		t.Fatalf("left %v", left)
	}
	if err := s.Add("z", 4); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	select {
	case f := <-failed:
		t.Fatalf("after Close: %s", f)
	case <-time.After(120 * time.Millisecond):
	}
}
