package summary

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// metered is what the generator's meter makes of sends at these times
// (unix ms): a count per second of the run's own from the first send, the
// first and the last.
func metered(sendsMs []int64) MessagesSummary {
	slices.Sort(sendsMs)
	m := MessagesSummary{Sent: int64(len(sendsMs)), FirstSendMs: sendsMs[0], LastSendMs: sendsMs[len(sendsMs)-1],
		PerSecondStartMs: sendsMs[0]}
	for _, t := range sendsMs {
		i := (t - m.PerSecondStartMs) / 1000
		for int64(len(m.PerSecond)) <= i {
			m.PerSecond = append(m.PerSecond, 0)
		}
		m.PerSecond[i]++
	}
	m.SetRates()
	return m
}

// A burst of 80 sends within a millisecond is 80 in its second: its peak
// and its average are 80 a second, not 80,000.
func TestABurstPeaksAtItsBusiestSecond(t *testing.T) {
	var sends []int64
	for i := range int64(80) {
		sends = append(sends, 1_700_000_000_300+i/80)
	}
	m := metered(sends)
	if m.PeakPerSecond != 80 || m.AvgPerSecond != 80 {
		t.Fatalf("peak %d, average %v for 80 sends in a millisecond", m.PeakPerSecond, m.AvgPerSecond)
	}
	// Bursts of 40 at each second's start for 69 seconds.
	sends = sends[:0]
	for s := range int64(69) {
		for i := range int64(40) {
			sends = append(sends, 1_700_000_000_000+s*1000+i/20)
		}
	}
	if m := metered(sends); m.PeakPerSecond != 40 || m.AvgPerSecond < 40 || m.AvgPerSecond > 40.6 {
		t.Fatalf("peak %d, average %v for 40 a second", m.PeakPerSecond, m.AvgPerSecond)
	}
}

// The peak is the busiest second's count, and the average never
// exceeds it, whatever the sends' times.
func TestPeakIsTheBusiestSecondAndNeverBelowTheAverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var sends []int64
	for trial := range 2000 {
		start := 1_700_000_000_000 + rng.Int64N(1000)
		span := 1 + rng.Int64N(6000)
		n := 1 + rng.IntN(3000)
		sends = sends[:0]
		for range n {
			switch trial % 3 {
			case 0: // anywhere
				sends = append(sends, start+rng.Int64N(span+1))
			case 1: // at both ends
				sends = append(sends, start+span*rng.Int64N(2))
			default: // a burst somewhere
				sends = append(sends, start+min(span, span/3+rng.Int64N(span/10+1)))
			}
		}
		m := metered(sends)
		if m.PeakPerSecond != slices.Max(m.PerSecond) || float64(m.PeakPerSecond) < m.AvgPerSecond {
			t.Fatalf("trial %d: peak %d, average %v (%d sends over %d ms, per second %v)",
				trial, m.PeakPerSecond, m.AvgPerSecond, m.Sent, m.LastSendMs-m.FirstSendMs, m.PerSecond)
		}
	}
}

// A steady rate peaks and averages at itself: the partial seconds at
// either end neither inflate nor dilute it.
func TestSteadyRatePeaksAtItself(t *testing.T) {
	var sends []int64
	for i := range int64(10500) { // 1,000 a second for 10.5 s, from mid-second
		sends = append(sends, 1_700_000_000_400+i)
	}
	m := metered(sends)
	if m.PeakPerSecond != 1000 || m.AvgPerSecond < 999 || m.AvgPerSecond > 1001 {
		t.Fatalf("peak %d, average %v for 1,000 a second (per second %v)", m.PeakPerSecond, m.AvgPerSecond, m.PerSecond)
	}
}

// Sends the meter missed before its first second are a second of their
// own.
func TestUnmeteredSendsAreASecondOfTheirOwn(t *testing.T) {
	m := MessagesSummary{Sent: 3000, FirstSendMs: 10_999, LastSendMs: 12_999, PerSecondStartMs: 11_000, PerSecond: []int64{500, 500}}
	m.SetRates()
	if m.PeakPerSecond != 2000 || m.AvgPerSecond != 1500 {
		t.Fatalf("peak %d, average %v", m.PeakPerSecond, m.AvgPerSecond)
	}
}

// A login timed after the sending ended is not said to be during it.
func TestTimedLoginsAreOnTheTimeline(t *testing.T) {
	if got := TimedText(UsersSummary{TimedLogins: 3, PlannedTimed: 3}); got != ", 3 at their time on the run's timeline" {
		t.Fatalf("%q", got)
	}
	if got := TimedText(UsersSummary{}); got != "" {
		t.Fatalf("%q with none timed", got)
	}
}
