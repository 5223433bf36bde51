package summary

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Outage is a window in which users were dropped by the server and not yet
// back: from the first drop while none was down until the last came back
// or gave up. A reconnect storm, a gateway killed, a target restarted.
type Outage struct {
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"` // zero: still open when the run ended
	Dropped    int64     `json:"dropped"`
	Reconnects int64     `json:"reconnects"`
	GaveUp     int64     `json:"gave_up"`
	// BackOnlineMs is End−Start: the time back to all online.
	BackOnlineMs float64 `json:"back_online_ms"`
	// ReconnectsPerSecond counts reconnects per wall-clock second from
	// PerSecondStart (unix).
	ReconnectsPerSecond []int64 `json:"reconnects_per_second"`
	PerSecondStart      int64   `json:"per_second_start"`
	PeakReconnectsPerS  int64   `json:"peak_reconnects_per_second"`
}

// Outages are the run's windows (the largest maxOutages of them, in time
// order) and how many smaller ones were left out.
type Outages struct {
	Windows []Outage `json:"windows"`
	Omitted int      `json:"omitted"`
}

// Finish computes the derived figures of a window.
func (o *Outage) Finish() {
	o.BackOnlineMs = 0
	if !o.End.IsZero() {
		o.BackOnlineMs = float64(o.End.Sub(o.Start).Microseconds()) / 1000
	}
	o.PeakReconnectsPerS = 0
	for _, n := range o.ReconnectsPerSecond {
		o.PeakReconnectsPerS = max(o.PeakReconnectsPerS, n)
	}
}

// MergeOutages joins the windows of several processes: windows that overlap
// are one outage seen from several places, their counts summed second by
// second; the joined window ends when the last process had everyone back.
func MergeOutages(parts []*Outages) *Outages {
	var all []Outage
	omitted := 0
	for _, p := range parts {
		if p == nil {
			continue
		}
		all = append(all, p.Windows...)
		omitted += p.Omitted
	}
	if len(all) == 0 && omitted == 0 {
		return nil
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Start.Before(all[j].Start) })
	var out []Outage
	for _, w := range all {
		if n := len(out); n > 0 && overlaps(out[n-1], w) {
			out[n-1] = joinOutages(out[n-1], w)
			continue
		}
		w.ReconnectsPerSecond = append([]int64(nil), w.ReconnectsPerSecond...)
		out = append(out, w)
	}
	for i := range out {
		out[i].Finish()
	}
	return &Outages{Windows: out, Omitted: omitted}
}

func overlaps(a, b Outage) bool { return a.End.IsZero() || !b.Start.After(a.End) }

func joinOutages(a, b Outage) Outage {
	if a.End.IsZero() || b.End.IsZero() {
		a.End = time.Time{}
	} else if b.End.After(a.End) {
		a.End = b.End
	}
	a.Dropped += b.Dropped
	a.Reconnects += b.Reconnects
	a.GaveUp += b.GaveUp
	a.ReconnectsPerSecond = addSeconds(a.ReconnectsPerSecond, a.PerSecondStart, b.ReconnectsPerSecond, b.PerSecondStart)
	return a
}

// addSeconds adds counts b (from second bStart) into a (from aStart <= bStart).
func addSeconds(a []int64, aStart int64, b []int64, bStart int64) []int64 {
	off := bStart - aStart
	for i, n := range b {
		j := off + int64(i)
		if j < 0 {
			continue
		}
		for int64(len(a)) <= j {
			a = append(a, 0)
		}
		a[j] += n
	}
	return a
}

// OutageText says in a line what the run's outages were.
func OutageText(o *Outages) string {
	if o == nil || len(o.Windows) == 0 {
		return ""
	}
	var parts []string
	for _, w := range o.Windows {
		back := "not all back by the end"
		if !w.End.IsZero() {
			back = fmt.Sprintf("all back after %.1f s", w.BackOnlineMs/1000)
		}
		s := fmt.Sprintf("%d dropped at %s, %s, %d reconnects (peak %d/s)",
			w.Dropped, w.Start.UTC().Format("15:04:05"), back, w.Reconnects, w.PeakReconnectsPerS)
		if w.GaveUp > 0 {
			s += fmt.Sprintf(", %d gave up", w.GaveUp)
		}
		parts = append(parts, s)
	}
	if len(parts) > 3 {
		parts = append(parts[:3], fmt.Sprintf("%d more", len(parts)-3))
	}
	if o.Omitted > 0 {
		parts = append(parts, fmt.Sprintf("%d smaller windows not kept", o.Omitted))
	}
	return fmt.Sprintf("%d outage(s): %s", len(o.Windows), strings.Join(parts, "; "))
}
