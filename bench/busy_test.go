package bench

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// A run whose one crossed threshold is its pace failed for the machine's
// sake; one that also lost a message did not.
func TestOnlyAMissedPaceIsTheMachines(t *testing.T) {
	for out, want := range map[string]bool{
		"imbench: thresholds crossed: send_pace value>=0.9\n":                    true,
		"x\nimbench: thresholds crossed: send_pace value>=0.9, send_pace{x} p\n": true,
		"imbench: thresholds crossed: lost count==0, send_pace value>=0.9\n":     false,
		"imbench: target down\n": false,
	} {
		if got := onlyPaceCrossed(out); got != want {
			t.Errorf("%q: %v, want %v", out, got, want)
		}
	}
}

// A point failing for the machine's sake is tried busyTries times and
// no more; any other failure ends it at the first.
func TestBusyPointsAreTriedABoundedNumberOfTimes(t *testing.T) {
	tries := 0
	_, err := retryBusy("p", func() (int, error) { tries++; return 0, busyError{errors.New("floor dropped")} })
	if tries != busyTries || !isBusy(err) {
		t.Fatalf("%d tries, err %v", tries, err)
	}
	tries = 0
	_, err = retryBusy("p", func() (int, error) {
		tries++
		if tries == 2 {
			return 7, nil
		}
		return 0, busyError{errors.New("pace")}
	})
	if tries != 2 || err != nil {
		t.Fatalf("%d tries, err %v", tries, err)
	}
	tries = 0
	if _, err = retryBusy("p", func() (int, error) { tries++; return 0, errors.New("lost 3") }); tries != 1 || isBusy(err) {
		t.Fatalf("%d tries, err %v", tries, err)
	}
}

// The page names a point the machine kept from being measured, beside the
// points that were.
func TestThePageMarksWhatWasNotMeasured(t *testing.T) {
	r := &benchResult{
		Delivery: []*deliveryResult{{Protocol: "openim", Rate: 1100, Users: 200, NotMeasured: notMeasured(errors.New("bench-floor: a bare client's connection ended"))},
			{Protocol: "openim", Rate: 50, Users: 200, CPUMicrosPerDeliv: 3.5, Deliveries: 100}},
		Notes: []string{"flat: " + notMeasured(errors.New("it kept less than 90 % of its pace"))},
	}
	var b bytes.Buffer
	writeTable(&b, r)
	for _, want := range []string{
		"| generator CPU per verified delivery, openim at 1100 msg/s | not measured: the machine was busy (bench-floor: a bare client's connection ended) |",
		"| generator CPU per verified delivery, openim | 3.50 µs",
		"| flat | not measured: the machine was busy (it kept less than 90 % of its pace) |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

func TestTailKeepsTheLastBytes(t *testing.T) {
	var tl tail
	tl.Write(bytes.Repeat([]byte("a"), tailBytes))
	tl.Write([]byte("imbench: thresholds crossed: send_pace value>=0.9\n"))
	if s := tl.String(); len(s) != tailBytes || !onlyPaceCrossed(s) {
		t.Fatalf("kept %d bytes", len(s))
	}
}
