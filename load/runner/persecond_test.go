package runner

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/imbench/imbench/load/plan"
)

// The plan's seconds are the sends' seconds: 400 messages due together at
// the first due time are one second's 400, so a burst sent within that
// second is nothing behind the plan.
func TestThePlansSecondsAreTheSendsSeconds(t *testing.T) {
	w := plan.Workload{Name: "test/burst", RunID: "r1", Classes: []json.RawMessage{
		json.RawMessage(`{"kind":"groups","groups":40,"members":3,"allOnline":true,"ratePerMinute":600,"messages":20,"pace":"burst"}`)}}
	p, err := w.Build()
	if err != nil {
		t.Fatal(err)
	}
	got := plannedPerSecond(p, p.FirstDue(), 1)
	if !slices.Equal(got, []int64{400, 400}) {
		t.Fatalf("planned per second %v, want [400 400]", got)
	}
	// Evenly paced at 5/s from 0.1 s: each of the run's seconds is due 5.
	w.Classes = []json.RawMessage{json.RawMessage(`{"kind":"groups","groups":1,"members":3,"allOnline":true,"ratePerMinute":300,"messages":10}`)}
	if p, err = w.Build(); err != nil {
		t.Fatal(err)
	}
	if got := plannedPerSecond(p, p.FirstDue(), 3); !slices.Equal(got, []int64{5, 5, 0}) {
		t.Fatalf("planned per second %v from %v, want [5 5 0]", got, p.FirstDue())
	}
	if p.FirstDue() < 0 || p.FirstDue() >= 200*time.Millisecond {
		t.Fatalf("first due %v", p.FirstDue())
	}
}
