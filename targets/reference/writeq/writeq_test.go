package writeq

import (
	"testing"
	"time"
)

func TestQueueKeepsOrderLimitAndFront(t *testing.T) {
	var q Queue[int]
	for i := 1; i <= 3; i++ {
		if !q.Push(i, 3) {
			t.Fatalf("push %d refused below the limit", i)
		}
	}
	if q.Push(4, 3) {
		t.Fatal("a fourth push past a limit of 3")
	}
	q.PushFront(0)
	done := make(chan struct{})
	if got := q.Take(nil, done); len(got) != 4 || got[0] != 0 || got[3] != 3 {
		t.Fatalf("took %v, want [0 1 2 3]", got)
	}
	spare := make([]int, 0, 8)
	q.Push(5, 3)
	if got := q.Take(spare, done); len(got) != 1 || got[0] != 5 {
		t.Fatalf("took %v, want [5]", got)
	}
	q.Push(6, 3)
	if got := q.Take(nil, done); cap(got) != 8 {
		t.Fatalf("the spare was not the next queue: cap %d", cap(got))
	}
}

// A writer waiting on an empty queue wakes for the next push, and ends
// when done closes.
func TestTakeWaitsForAPushOrTheEnd(t *testing.T) {
	var q Queue[string]
	done := make(chan struct{})
	got := make(chan []string)
	go func() { got <- q.Take(nil, done) }()
	time.Sleep(20 * time.Millisecond)
	q.Push("a", 10)
	select {
	case v := <-got:
		if len(v) != 1 || v[0] != "a" {
			t.Fatalf("took %v", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the push did not wake the writer")
	}
	go func() { got <- q.Take(nil, done) }()
	close(done)
	select {
	case v := <-got:
		if v != nil {
			t.Fatalf("took %v after the end", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the end did not wake the writer")
	}
}
