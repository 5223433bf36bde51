package summary

// PeakRate is the highest send rate, in messages a second, over windows of
// a second or more that cut the sending span (first to last send) at
// whole seconds of m.PerSecond: a partial second at either end joins the
// window next to it, and a span shorter than a second is one window. The
// average (AvgRate) is the same sends over the same span, so it cannot
// exceed the peak — as it did when the peak was the most sends in one
// wall-clock second and the sending took less than a second. Sends the
// meter left out of its seconds (those before its first) open the first
// window, with the time they took.
func PeakRate(m MessagesSummary) int64 {
	span := m.LastSendMs - m.FirstSendMs
	if m.Sent < 2 || span <= 0 {
		return m.Sent // as AvgRate: no span to spread them over
	}
	type window struct{ sends, ms int64 }
	cur := window{sends: m.Sent, ms: min(max(m.PerSecondStart*1000-m.FirstSendMs, 0), span)}
	for _, n := range m.PerSecond {
		cur.sends -= n
	}
	cur.sends = max(cur.sends, 0)
	var ws []window
	for i, n := range m.PerSecond {
		sec := (m.PerSecondStart + int64(i)) * 1000
		from, to := max(m.FirstSendMs, sec), min(m.LastSendMs, sec+1000)
		cur.sends += n
		cur.ms += max(to-from, 0)
		if cur.ms >= 1000 {
			ws = append(ws, cur)
			cur = window{}
		}
	}
	switch {
	case len(ws) == 0:
		ws = append(ws, cur)
	case cur != window{}:
		ws[len(ws)-1].sends += cur.sends // the tail, shorter than a second
		ws[len(ws)-1].ms += cur.ms
	}
	var peak int64
	for _, w := range ws {
		ms := w.ms
		if ms == 0 { // seconds that miss the span: the span is the window
			ms = span
		}
		peak = max(peak, (w.sends*1000+ms-1)/ms) // rounded up: never below the average
	}
	return peak
}
