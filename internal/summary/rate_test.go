package summary

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// metered is what the generator's meter makes of sends at these times
// (unix ms): a count per wall-clock second, the first and the last.
func metered(sendsMs []int64) MessagesSummary {
	slices.Sort(sendsMs)
	m := MessagesSummary{Sent: int64(len(sendsMs)), FirstSendMs: sendsMs[0], LastSendMs: sendsMs[len(sendsMs)-1],
		PerSecondStart: sendsMs[0] / 1000}
	for _, t := range sendsMs {
		i := t/1000 - m.PerSecondStart
		for int64(len(m.PerSecond)) <= i {
			m.PerSecond = append(m.PerSecond, 0)
		}
		m.PerSecond[i]++
	}
	m.AvgPerSecond = AvgRate(m.Sent, m.FirstSendMs, m.LastSendMs)
	return m
}

// wukongim/ordering sent 5,000 messages in 614 ms across a second's turn:
// no wall-clock second held more than 5,000, while the rate was 8,141.7 a
// second. The peak is a rate over the same span, not a count of a second.
func TestPeakIsNeverBelowTheAverage(t *testing.T) {
	var sends []int64
	for i := range int64(5000) {
		sends = append(sends, 1_700_000_000_700+i*614/4999)
	}
	m := metered(sends)
	if most := slices.Max(m.PerSecond); float64(most) >= m.AvgPerSecond {
		t.Fatalf("the case: most in a second %d, average %v", most, m.AvgPerSecond)
	}
	if peak := PeakRate(m); float64(peak) < m.AvgPerSecond || peak > 8144 {
		t.Fatalf("peak %d, average %v", peak, m.AvgPerSecond)
	}

	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 2000 {
		start := 1_700_000_000_000 + rng.Int64N(1000)
		span := 1 + rng.Int64N(6000)
		n := 2 + rng.IntN(3000)
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
		if peak := PeakRate(m); float64(peak) < m.AvgPerSecond {
			t.Fatalf("trial %d: peak %d below the average %v (%d sends over %d ms, per second %v)",
				trial, peak, m.AvgPerSecond, m.Sent, m.LastSendMs-m.FirstSendMs, m.PerSecond)
		}
	}
}

// A steady rate peaks at itself: the partial seconds at either end neither
// inflate nor dilute it.
func TestSteadyRatePeaksAtItself(t *testing.T) {
	var sends []int64
	for i := range int64(10500) { // 1,000 a second for 10.5 s, from mid-second
		sends = append(sends, 1_700_000_000_400+i)
	}
	m := metered(sends)
	if peak := PeakRate(m); peak < 1000 || peak > 1001 {
		t.Fatalf("peak %d for 1,000 a second (average %v, per second %v)", peak, m.AvgPerSecond, m.PerSecond)
	}
}

// Sends the meter missed before its first second are in the count: they
// open the first window, with the time they took, and the peak stays
// above the average.
func TestUnmeteredSendsCountInTheFirstWindow(t *testing.T) {
	// 2,000 sends in the last ms of second 10, then 500 in each of 11 and 12.
	m := MessagesSummary{Sent: 3000, FirstSendMs: 10_999, LastSendMs: 12_999, PerSecondStart: 11, PerSecond: []int64{500, 500}}
	m.AvgPerSecond = AvgRate(m.Sent, m.FirstSendMs, m.LastSendMs)
	// The first window: 2,000 + 500 sends in 1.001 s; the last 999 ms join it.
	if peak := PeakRate(m); peak != 1500 || float64(peak) < m.AvgPerSecond {
		t.Fatalf("peak %d, average %v", peak, m.AvgPerSecond)
	}
}
