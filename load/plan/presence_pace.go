package plan

import (
	"math"
	"slices"
	"sort"
	"time"
)

// online sets when the stream's lanes can write: each lane's senders' login
// (join, nil: all from the start) and spells away. A class paced at a rate
// for a time then sends at its rate in each conversation while its sender
// is online, and only then: a lane's messages are its rate × its time
// online in the class's window (the class's total rounded once), and the
// class's rate at any moment is the rate of the conversations online then.
// A class bounded by messages keeps its counts; its lanes join at their
// login and pass their turns while away.
func (p *Pace) online(s *Stream, join []time.Duration, spells []Spell) {
	if !slices.ContainsFunc(join, func(d time.Duration) bool { return d > 0 }) {
		join = nil
	}
	s.joinAt = join
	s.passTurnsAway(spells)
	if (s.joinAt == nil && s.away == nil) || !s.Open() || s.instant || s.ramp != nil || s.lead > 0 || p.Messages > 0 || len(s.lanes) == 0 {
		return
	}
	d, _ := p.duration()
	start, end := s.start, s.start+d
	r := p.convRate(len(s.lanes))
	// Each lane's time online within [start, end), and the moments the
	// number of lanes online changes.
	type change struct {
		at time.Duration
		by int
	}
	var changes []change
	exact := make([]float64, len(s.lanes))
	for i := range s.lanes {
		from := start
		if s.joinAt != nil {
			from = max(from, s.joinAt[i])
		}
		if from >= end {
			continue
		}
		on := end - from
		changes = append(changes, change{from, 1}, change{end, -1})
		if s.away != nil {
			for _, sp := range s.away[i] {
				a, b := max(sp.at, from), min(sp.until, end)
				if a < b {
					on -= b - a
					changes = append(changes, change{a, -1}, change{b, 1})
				}
			}
		}
		exact[i] = r * on.Seconds()
	}
	// Counts by prefix rounding: the class's total rounded once.
	var sum float64
	var prev, total int64
	for i := range s.lanes {
		sum += exact[i]
		n := int64(math.Round(sum))
		s.lanes[i][0].count = uint32(n - prev)
		for k := 1; k < len(s.lanes[i]); k++ {
			s.lanes[i][k].count = 0
		}
		total, prev = n, n
	}
	s.total = uint64(total)
	sort.SliceStable(changes, func(a, b int) bool { return changes[a].at < changes[b].at })
	rp := &ramp{}
	online, n, at := 0, 0.0, start
	for _, c := range changes {
		if c.at > at {
			rate := r * float64(online)
			rp.stages = append(rp.stages, rampStage{d: c.at - at, r0: rate, r1: rate, n0: n})
			n += rate * (c.at - at).Seconds()
			at = c.at
		}
		online += c.by
	}
	if len(rp.stages) == 0 {
		return
	}
	rp.index()
	s.ramp, s.online = rp, true // its time counts from the class's start, as due adds it
}

// onlineRate is the rate of one conversation while its sender is online.
func (s *Stream) onlineRate() float64 {
	if s.Interval <= 0 || len(s.lanes) == 0 {
		return 0
	}
	return float64(time.Second) / float64(s.Interval) / float64(len(s.lanes))
}
