package summary

import (
	"testing"
	"time"
)

func TestMergeOutagesJoinsWhatOverlaps(t *testing.T) {
	t0 := time.Unix(1000, 0).UTC()
	a := &Outages{Windows: []Outage{
		{Start: t0, End: t0.Add(2 * time.Second), Dropped: 10, Reconnects: 10, ReconnectsPerSecond: []int64{4, 6}, PerSecondStart: 1000},
		{Start: t0.Add(60 * time.Second), End: t0.Add(61 * time.Second), Dropped: 1, Reconnects: 1, ReconnectsPerSecond: []int64{0, 1}, PerSecondStart: 1060},
	}}
	b := &Outages{Windows: []Outage{
		{Start: t0.Add(500 * time.Millisecond), End: t0.Add(3 * time.Second), Dropped: 5, Reconnects: 4, GaveUp: 1,
			ReconnectsPerSecond: []int64{0, 3, 1}, PerSecondStart: 1000},
	}, Omitted: 2}
	m := MergeOutages([]*Outages{a, nil, b})
	if len(m.Windows) != 2 || m.Omitted != 2 {
		t.Fatalf("%+v", m)
	}
	w := m.Windows[0]
	if w.Dropped != 15 || w.Reconnects != 14 || w.GaveUp != 1 || !w.End.Equal(t0.Add(3*time.Second)) ||
		w.BackOnlineMs != 3000 || w.PeakReconnectsPerS != 9 || len(w.ReconnectsPerSecond) != 3 {
		t.Fatalf("joined window %+v", w)
	}
	if MergeOutages([]*Outages{nil, nil}) != nil {
		t.Fatal("no outages merge into some")
	}
}
