package plan

import (
	"math"
	"testing"
	"time"
)

// Forty small classes ramping together from 5 to 50 msg/s in all do not
// send in the same instant: each second's messages of the plan are within
// one of the ramp's (the last second short of each class's part message:
// a class sends whole messages, 41 of the 41.25 its ramp has).
func TestSmallClassesTakeTurnsWithinTheSecond(t *testing.T) {
	var classes []string
	for range 40 {
		classes = append(classes, `{"kind":"pairs","pairs":1,"startRate":0.125,"stages":[{"duration":"60s","target":1.25}]}`)
	}
	p := build(t, workload(t, classes...))
	for i := range 59 {
		got := p.DueBefore(time.Duration(i+1)*time.Second) - p.DueBefore(time.Duration(i)*time.Second)
		want := 5 + 45*(float64(i)+0.5)/60 // the ramp's messages in second i
		if math.Abs(float64(got)-want) > 1 {
			t.Errorf("second %d: %d messages due, the ramp has %.2f", i, got, want)
		}
	}
	// One class keeps its first message at the start of sending.
	one := build(t, workload(t, `{"kind":"pairs","pairs":3,"rate":1,"messages":2}`))
	for _, due := range one.Schedule() {
		if due != 0 {
			t.Fatalf("the first message of a lone class is due at %s", due)
		}
		break
	}
}
