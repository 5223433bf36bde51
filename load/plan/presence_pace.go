package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// online sets when the stream's lanes can write: each lane's senders' login
// (join, nil: all from the start) and spells away. The class must send for
// a time: at its rate in each conversation while its sender is online, and
// only then. A lane's messages are its rate × its time online in the
// class's window (the class's total rounded once), plus its share of a
// burst at the start, and the class's rate at any moment is the rate of
// the conversations online then.
func (p *Pace) online(s *Stream, join []time.Duration, spells []Spell) error {
	if !slices.ContainsFunc(join, func(d time.Duration) bool { return d > 0 }) {
		join = nil
	}
	s.joinAt = join
	s.passTurnsAway(spells)
	if s.joinAt == nil && s.away == nil || len(s.lanes) == 0 {
		return nil
	}
	switch {
	case !s.Open() && s.away != nil:
		return errors.New("a closed class (inFlight) sends as fast as acknowledged: its senders cannot go away for a spell")
	case s.instant:
		if s.awayAny(s.start) {
			return fmt.Errorf("a sender of its burst at %s is away then", seconds(s.start))
		}
		s.away = nil
		return nil
	case s.ramp != nil:
		return errors.New("a class with stages has senders who log in late or go away: give it a rate and a duration (or stopAt), which then follow them")
	case p.Messages > 0:
		return errors.New("its senders log in late or go away: give the class a duration (or stopAt), not messages, and each conversation sends at its rate while its writer is online")
	case s.lead > 0 && s.awayAny(s.start):
		return fmt.Errorf("a sender of its burst at its start (%s) is away then", seconds(s.start))
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
	// Counts by prefix rounding: the class's total rounded once, and each
	// lane's share of the burst at its start.
	lead := s.lead / int64(len(s.lanes))
	var sum float64
	var prev, total int64
	for i := range s.lanes {
		sum += exact[i]
		n := int64(math.Round(sum))
		s.lanes[i][0].count = uint32(n - prev + lead)
		for k := 1; k < len(s.lanes[i]); k++ {
			s.lanes[i][k].count = 0
		}
		total, prev = n, n
	}
	s.total = uint64(total + s.lead)
	if total == 0 {
		return errors.New("none of its senders is online while it sends: its rate × their time online is no message")
	}
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
	rp.index()
	s.ramp, s.online = rp, true // its time counts from the class's start, as due adds it
	return nil
}

// onlineRate is the rate of one conversation while its sender is online.
func (s *Stream) onlineRate() float64 {
	if s.Interval <= 0 || len(s.lanes) == 0 {
		return 0
	}
	return float64(time.Second) / float64(s.Interval) / float64(len(s.lanes))
}

// awayAny reports whether any lane's sender is away at t.
func (s *Stream) awayAny(t time.Duration) bool {
	for i := range s.lanes {
		if s.awayAt(i, t) {
			return true
		}
	}
	return false
}
