package plan

import (
	"strings"
	"testing"
	"time"
)

// Burst pacing sends each second's messages at the start of that second:
// the same messages as even pacing, due in whole seconds.
func TestBurstPacingSendsEachSecondsMessagesTogether(t *testing.T) {
	class := `{"kind":"groups","groups":4,"members":3,"allOnline":true,"ratePerMinute":300,"messages":10%s}`
	even := build(t, workload(t, strings.Replace(class, "%s", "", 1)))
	burst := build(t, workload(t, strings.Replace(class, "%s", `,"pace":"burst"`, 1)))
	if even.Planned() != burst.Planned() || even.Planned() != 40 {
		t.Fatalf("planned even %d burst %d, want 40 each", even.Planned(), burst.Planned())
	}
	perSecond := map[time.Duration]int{}
	var evenDues []time.Duration
	for _, due := range even.Schedule() {
		evenDues = append(evenDues, due)
	}
	i := 0
	for _, due := range burst.Schedule() {
		if due%time.Second != 0 {
			t.Fatalf("message %d due at %v: not at a whole second", i, due)
		}
		if want := evenDues[i].Truncate(time.Second); due != want {
			t.Fatalf("message %d due at %v, want %v (the second it falls in when even)", i, due, want)
		}
		perSecond[due]++
		i++
	}
	// 4 groups × 5/s: 20 a second, two seconds.
	if len(perSecond) != 2 || perSecond[0] != 20 || perSecond[time.Second] != 20 {
		t.Fatalf("messages per second %v, want 20 at 0s and 1s", perSecond)
	}
}

func TestPaceShapesAreChecked(t *testing.T) {
	for name, c := range map[string]struct{ class, want string }{
		"unknown": {`{"kind":"pairs","pairs":2,"rate":1,"messages":1,"pace":"spiky"}`, `pace must be "even" or "burst"`},
		"closed":  {`{"kind":"pairs","pairs":2,"inFlight":2,"messages":1,"pace":"burst"}`, "closed class"},
	} {
		if _, err := workload(t, c.class).Build(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
	if _, err := workload(t, `{"kind":"pairs","pairs":2,"rate":1,"messages":1,"pace":"even"}`).Build(); err != nil {
		t.Fatal(err)
	}
}
