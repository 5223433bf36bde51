package summary

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/latency"
)

// Merge adds up the partial summaries of one run's k6 processes (one per
// execution segment) into the run's summary: counts add, per-second sends
// add second by second, latencies merge from their histograms, so the result
// is what one process holding every user would have written.
func Merge(parts []Summary) (Summary, error) { return merge(parts, nil) }

// MergeMissing merges the parts of a run some of whose segments wrote no
// summary (their k6 was killed): those are named in Missing and a warning,
// and the users they held are left out instead of refused.
func MergeMissing(parts []Summary, missing []string) (Summary, error) {
	out, err := merge(parts, missing)
	if err != nil || len(missing) == 0 {
		return out, err
	}
	out.Missing = missing
	out.Warnings = append(out.Warnings, fmt.Sprintf("segment(s) %s of %d wrote no summary (their process ended early): "+
		"%s; their senders' messages are missing from the totals, and what the other segments' senders owed their users counts as lost: "+
		"these figures are the other segments' only", strings.Join(missing, ", "), len(parts)+len(missing), MissingUsersText(out)))
	return out, nil
}

func merge(parts []Summary, missing []string) (Summary, error) {
	if len(parts) == 0 {
		return Summary{}, errors.New("no partial summaries")
	}
	out := parts[0]
	out.Parts = nil
	out.Segment = ""
	out.Warnings = nil
	out.Users = UsersSummary{Registered: parts[0].Users.Registered, PlannedOnline: parts[0].Users.PlannedOnline,
		PlannedLate: parts[0].Users.PlannedLate, PlannedTimed: parts[0].Users.PlannedTimed}
	out.ServerCores = parts[0].ServerCores
	out.Messages = MessagesSummary{Planned: parts[0].Messages.Planned, PlannedRate: parts[0].Messages.PlannedRate, PlannedSeconds: parts[0].Messages.PlannedSeconds,
		Closed: parts[0].Messages.Closed, Burst: parts[0].Messages.Burst,
		ByType: map[string]int64{}}
	out.Deliveries = DeliveriesSummary{ByType: map[string]DeliveriesByType{}}
	out.Generator = GeneratorSummary{}
	out.Logins = nil
	hists := map[string]*latency.Histogram{}
	lastStart := out.StartedAt
	var perSec []int64
	origin := firstSecondMs(parts)
	var outages []*Outages
	for _, p := range parts {
		for _, w := range p.Warnings {
			if !slices.Contains(out.Warnings, w) {
				out.Warnings = append(out.Warnings, w) // what one segment saw, once
			}
		}
		outages = append(outages, p.Outages)
		if p.RunID != out.RunID {
			return Summary{}, fmt.Errorf("partial summaries of runs %s and %s", out.RunID, p.RunID)
		}
		out.Parts = append(out.Parts, p.Segment)
		if p.StartedAt.Before(out.StartedAt) {
			out.StartedAt = p.StartedAt
		}
		if p.StartedAt.After(lastStart) {
			lastStart = p.StartedAt
		}
		if p.EndedAt.After(out.EndedAt) {
			out.EndedAt = p.EndedAt
		}
		u := &out.Users
		u.NewlyRegistered += p.Users.NewlyRegistered
		u.OnlinePeak += p.Users.OnlinePeak // the processes' peaks fall in the same phase
		u.Logins += p.Users.Logins
		u.LateLogins += p.Users.LateLogins
		u.TimedLogins += p.Users.TimedLogins
		u.Logouts += p.Users.Logouts
		u.LoginsBack += p.Users.LoginsBack
		u.ConnectErrors += p.Users.ConnectErrors
		u.Disconnects += p.Users.Disconnects
		for c, v := range p.Users.DisconnectCauses {
			if u.DisconnectCauses == nil {
				u.DisconnectCauses = map[string]int64{}
			}
			u.DisconnectCauses[c] += v
		}
		u.Reconnects += p.Users.Reconnects
		u.Kicks += p.Users.Kicks
		u.NeverOnline += p.Users.NeverOnline
		u.OnlineAfterRetry += p.Users.OnlineAfterRetry
		if h := p.Users.HeldSeconds; h > 0 && (u.HeldSeconds == 0 || h < u.HeldSeconds) {
			u.HeldSeconds = h
		}
		for _, c := range []struct {
			dst **LoginCauses
			src *LoginCauses
		}{{&u.LoginFailures, p.Users.LoginFailures}, {&u.LoginRetries, p.Users.LoginRetries}} {
			if c.src != nil {
				if *c.dst == nil {
					*c.dst = &LoginCauses{}
				}
				(*c.dst).Add(c.src)
			}
		}
		m := &out.Messages
		m.Sent += p.Messages.Sent
		m.Acked += p.Messages.Acked
		m.SendFailed += p.Messages.SendFailed
		m.Unsent += p.Messages.Unsent
		m.Unanswered += p.Messages.Unanswered
		m.Dispatches += p.Messages.Dispatches
		m.MaxSendLagMs = math.Max(m.MaxSendLagMs, p.Messages.MaxSendLagMs)
		for k, v := range p.Messages.ByType {
			m.ByType[k] += v
		}
		at := secondsFrom(origin, p.Messages.PerSecondStartMs)
		perSec = addAt(perSec, at, p.Messages.PerSecond)
		m.OpenPerSecond = addAt(m.OpenPerSecond, at, p.Messages.OpenPerSecond)
		m.ByClass = mergeClassSends(m.ByClass, p.Messages.ByClass)
		d := &out.Deliveries
		pd := p.Deliveries
		d.Expected += pd.Expected
		d.Received += pd.Received
		d.Pushed += pd.Pushed
		d.ByPull += pd.ByPull
		d.ByGapPull += pd.ByGapPull
		d.ByReturnPull += pd.ByReturnPull
		d.ByReconnectPull += pd.ByReconnectPull
		d.Duplicates += pd.Duplicates
		d.OutOfOrder += pd.OutOfOrder
		d.Lost += pd.Lost
		d.LostNeverStored += pd.LostNeverStored
		d.Late += pd.Late
		d.Unchecked += pd.Unchecked
		if c := pd.StoreCheck; c != nil {
			if d.StoreCheck == nil {
				d.StoreCheck = &StoreCheckSummary{}
			}
			d.StoreCheck.add(c)
		}
		d.NotAttempted += pd.NotAttempted
		d.PushedAfterPull += pd.PushedAfterPull
		if w := pd.Watchers; w != nil {
			if d.Watchers == nil {
				d.Watchers = &WatchersSummary{Users: w.Users}
			}
			d.Watchers.Expected += w.Expected
			d.Watchers.Received += w.Received
		}
		if r := pd.Rooms; r != nil {
			if d.Rooms == nil {
				d.Rooms = &RoomsSummary{}
			}
			d.Rooms.Expected += r.Expected
			d.Rooms.Received += r.Received
			d.Rooms.Missed += r.Missed
			d.Rooms.BeforeJoin += r.BeforeJoin
			d.Rooms.OfUnanswered += r.OfUnanswered
			d.Rooms.Unexpected += r.Unexpected
		}
		d.Unexpected += pd.Unexpected
		d.OfUnanswered += pd.OfUnanswered
		d.Corrupted += pd.Corrupted
		d.Foreign += pd.Foreign
		for _, l := range pd.LostSample {
			if len(d.LostSample) < 20 {
				d.LostSample = append(d.LostSample, l)
			}
		}
		for i, c := range pd.ByClass {
			if i >= len(d.ByClass) {
				d.ByClass = append(d.ByClass, DeliveriesByClass{Class: c.Class, Kind: c.Kind, InFlight: c.InFlight})
			}
			d.ByClass[i].MaxInFlight = max(d.ByClass[i].MaxInFlight, c.MaxInFlight)
			d.ByClass[i].Expected += c.Expected
			d.ByClass[i].Received += c.Received
			d.ByClass[i].Duplicates += c.Duplicates
			d.ByClass[i].OutOfOrder += c.OutOfOrder
		}
		for i, c := range pd.ByPopulation {
			if i >= len(d.ByPopulation) {
				d.ByPopulation = append(d.ByPopulation, DeliveriesByPopulation{Population: c.Population, Users: c.Users})
			}
			d.ByPopulation[i].Expected += c.Expected
			d.ByPopulation[i].Received += c.Received
			d.ByPopulation[i].Duplicates += c.Duplicates
			d.ByPopulation[i].OutOfOrder += c.OutOfOrder
		}
		for k, v := range pd.ByType {
			t := d.ByType[k]
			t.Expected += v.Expected
			t.Received += v.Received
			t.Duplicates += v.Duplicates
			t.OutOfOrder += v.OutOfOrder
			t.Lost += v.Lost
			t.LostNeverStored += v.LostNeverStored
			t.Late += v.Late
			t.Unchecked += v.Unchecked
			t.NotAttempted += v.NotAttempted
			t.PushedAfterPull += v.PushedAfterPull
			d.ByType[k] = t
		}
		if l := p.Logins; l != nil {
			if out.Logins == nil {
				out.Logins = &LoginsSummary{Mode: l.Mode}
			}
			out.Logins.Count += l.Count
			out.Logins.Failed += l.Failed
			out.Logins.Requests += l.Requests
		}
		out.Generator.VUs += p.Generator.VUs
		out.Generator.UserRanges = append(out.Generator.UserRanges, p.Generator.UserRanges...)
		out.Generator.Processes = append(out.Generator.Processes, p.Generator.Processes...)
		if f := p.Messages.FirstSendMs; f > 0 && (out.Messages.FirstSendMs == 0 || f < out.Messages.FirstSendMs) {
			out.Messages.FirstSendMs = f
		}
		out.Messages.LastSendMs = max(out.Messages.LastSendMs, p.Messages.LastSendMs)
		out.Generator.PullRequests += p.Generator.PullRequests
		out.Generator.GapPullRequests += p.Generator.GapPullRequests
		out.Generator.HeartbeatsSent += p.Generator.HeartbeatsSent
		out.Generator.HeartbeatsSkipped += p.Generator.HeartbeatsSkipped
		for name, e := range p.Histograms {
			h, err := e.Decode()
			if err != nil {
				return Summary{}, fmt.Errorf("segment %s, %s histogram: %w", p.Segment, name, err)
			}
			if hists[name] == nil {
				hists[name] = latency.NewHistogram()
			}
			hists[name].Merge(h)
		}
		out.Latency.E2E.Negative += p.Latency.E2E.Negative
		out.Warnings = append(out.Warnings, p.Warnings...)
	}
	// Every segment has the whole plan's schedule from the run's common
	// start: the first one's is the run's.
	if origin != 0 {
		out.Messages.PerSecondStartMs = origin
		out.Messages.PerSecond = perSec
		if pl := parts[0].Messages.PlannedPerSecond; len(pl) > 0 {
			out.Messages.PlannedPerSecond = addAt(nil, secondsFrom(origin, parts[0].Messages.PerSecondStartMs), pl)
		}
	}
	out.Messages.SetRates()
	out.Outages = MergeOutages(outages)
	if err := checkRanges(out.Generator.UserRanges, out.Users.Registered, len(missing) > 0); err != nil {
		return out, err
	}
	out.Histograms = map[string]latency.Encoded{}
	for name, h := range hists {
		l := LatencyOf(h)
		switch name {
		case "e2e":
			l.Negative = out.Latency.E2E.Negative
			out.Latency.E2E = l
		case "ack":
			out.Latency.Ack = l
		case "login":
			if out.Logins != nil {
				out.Logins.TimeToOnline = l
			}
		}
		if e, err := h.Encode(); err == nil {
			out.Histograms[name] = e
		}
	}
	if out.Deliveries.Rooms != nil {
		out.Deliveries.Rooms.SetRate()
	}
	if out.Logins != nil {
		out.Logins.SetPerLogin()
	}
	out.Integrity = IntegrityOf(out.Deliveries.Expected, out.Deliveries.Undelivered())
	if spread := lastStart.Sub(out.StartedAt); spread > 2*time.Second {
		out.Warnings = append(out.Warnings, fmt.Sprintf("the %d k6 processes disagree on when the run started by %s: "+
			"their clocks differ or they started apart, and cross-process latencies are off by as much", len(parts), spread.Round(time.Millisecond)))
	}
	if n := out.Latency.E2E.Negative; n > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d deliveries arrived before they were created by the "+
			"sender's clock: the generators' clocks disagree (sync them, e.g. with chrony)", n))
	}
	return out, nil
}

// checkRanges proves the processes held every user exactly once.
func checkRanges(ranges [][2]uint32, users int, gapsOK bool) error {
	rs := append([][2]uint32(nil), ranges...)
	sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] })
	next := uint32(0)
	for _, r := range rs {
		if r[0] < next {
			return fmt.Errorf("users %d..%d are held by two processes", r[0], min(next, r[1])-1)
		}
		if r[0] > next && !gapsOK {
			return fmt.Errorf("users %d..%d are held by no process", next, r[0]-1)
		}
		next = r[1]
	}
	if int(next) != users && !gapsOK {
		return fmt.Errorf("users %d..%d are held by no process", next, users-1)
	}
	return nil
}

// MissingUsersText names the users of a merge's missing segments, "users
// 3..5, 9..9 not counted", or "".
func MissingUsersText(s Summary) string {
	if len(s.Missing) == 0 {
		return ""
	}
	return "users " + unheld(s.Generator.UserRanges, s.Users.Registered) + " not counted"
}

// unheld names the users no range holds, "3..5, 9..9".
func unheld(ranges [][2]uint32, users int) string {
	rs := append([][2]uint32(nil), ranges...)
	sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] })
	var gaps []string
	next := uint32(0)
	for _, r := range append(rs, [2]uint32{uint32(users), uint32(users)}) {
		if r[0] > next {
			gaps = append(gaps, fmt.Sprintf("%d..%d", next, r[0]-1))
		}
		next = max(next, r[1])
	}
	return strings.Join(gaps, ", ")
}

// LatencyOf summarises a histogram, rounded to the µs.
func LatencyOf(h *latency.Histogram) LatencySummary {
	r := func(v float64) float64 { return math.Round(v*1000) / 1000 }
	return LatencySummary{Count: h.Count(), Avg: r(h.MeanMs()), P50: r(h.QuantileMs(0.5)), P95: r(h.QuantileMs(0.95)),
		P99: r(h.QuantileMs(0.99)), Max: r(h.MaxMs())}
}

// firstSecondMs is the earliest part's first second (unix ms), 0 where
// none sent.
func firstSecondMs(parts []Summary) int64 {
	var first int64
	for _, p := range parts {
		if ms := p.Messages.PerSecondStartMs; ms != 0 && (first == 0 || ms < first) {
			first = ms
		}
	}
	return first
}

// secondsFrom is how many whole seconds a part's first second began
// after the run's: parts given one start share it, so this rounds away a
// clock's jitter.
func secondsFrom(originMs, startMs int64) int {
	if startMs == 0 {
		return 0
	}
	return int((startMs - originMs + 500) / 1000)
}

// addAt adds counts into sums from index at, growing it as needed.
func addAt(sums []int64, at int, counts []int64) []int64 {
	for i, v := range counts {
		for len(sums) <= at+i {
			sums = append(sums, 0)
		}
		sums[at+i] += v
	}
	return sums
}

// mergeClassSends adds a part's sends by class into sums.
func mergeClassSends(sums, part []ClassSends) []ClassSends {
	for _, c := range part {
		i := slices.IndexFunc(sums, func(x ClassSends) bool { return x.Class == c.Class })
		if i < 0 {
			sums = append(sums, c)
			continue
		}
		x := &sums[i]
		x.Sent, x.Unsent = x.Sent+c.Sent, x.Unsent+c.Unsent
		if c.FirstSendMs != 0 && (x.FirstSendMs == 0 || c.FirstSendMs < x.FirstSendMs) {
			x.FirstSendMs = c.FirstSendMs
		}
		x.LastSendMs = max(x.LastSendMs, c.LastSendMs)
	}
	return sums
}
