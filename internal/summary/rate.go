package summary

import "math"

// SetRates computes the send rates from the run's own seconds the meter
// counted (PerSecond): the peak is the busiest second's count, so a burst
// of 80 sends within a millisecond peaks at 80, never at a rate of its
// own. The average is the sends over the sending span (first to last
// send), a span under a second counting as one; it never exceeds the
// peak (a span of a second or two across a second's turn would).
func (m *MessagesSummary) SetRates() {
	m.PeakPerSecond = PeakRate(*m)
	m.AvgPerSecond = min(AvgRate(m.Sent, m.FirstSendMs, m.LastSendMs), float64(m.PeakPerSecond))
}

// PeakRate is the most sends counted in one of the run's seconds. Sends the
// meter left out of its seconds (before its first) count as one second of
// their own.
func PeakRate(m MessagesSummary) int64 {
	var peak, metered int64
	for _, n := range m.PerSecond {
		peak, metered = max(peak, n), metered+n
	}
	return max(peak, m.Sent-metered)
}

// AvgRate is the mean send rate between the first and the last of sent
// messages (unix ms), a span under a second counting as one second, to
// two decimals.
func AvgRate(sent, firstMs, lastMs int64) float64 {
	secs := max(float64(lastMs-firstMs)/1000, 1)
	return math.Round(float64(sent)/secs*100) / 100
}
