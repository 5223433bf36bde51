package runner

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/imbench/imbench/internal/latency"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// BuildSummary assembles the run's summary from its tallies.
func (r *Run) BuildSummary() summary.Summary {
	rec := r.reconciled()
	t := r.Shared.Totals()
	p := r.Plan
	s := summary.Summary{RunID: r.ID, Scenario: p.Name, Purpose: p.Purpose, System: r.Target.System, Target: r.Target.Name,
		TargetAPI: endpoint(r), Segment: r.Segment, Segments: r.Segments, StartedAt: r.StartedAt.UTC(), Workload: p.Workload,
		ServerCores: r.Opts.ServerCores}
	r.mu.Lock()
	s.EndedAt = r.endedAt.UTC()
	r.mu.Unlock()

	s.Setup.WritesRedone = int64(r.Setup.WritesRedone)
	s.Users = summary.UsersSummary{Registered: p.Users, NewlyRegistered: r.Setup.Registered,
		PlannedOnline: p.Count(plan.Immediate), PlannedLate: p.Count(plan.Late), PlannedTimed: p.Count(plan.Timed), OnlinePeak: r.Shared.Peak(),
		Logins: t.LoginsImmediate + t.LoginsLate + t.LoginsTimed, LateLogins: t.LoginsLate, TimedLogins: t.LoginsTimed, Logouts: t.Logouts, LoginsBack: t.LoginsBack, ConnectErrors: t.ConnectErrors,
		Disconnects: t.Disconnects, Reconnects: t.Reconnects, Kicks: t.Kicks}
	for i, v := range t.Dropped {
		if v > 0 {
			if s.Users.DisconnectCauses == nil {
				s.Users.DisconnectCauses = map[string]int64{}
			}
			s.Users.DisconnectCauses[verify.DropCauseName(i)] = v
		}
	}
	s.Users.NeverOnline = int64(rec.NeverOnline)
	s.Users.OnlineAfterRetry = t.LoginsRetried
	s.Users.HeldSeconds = r.held.seconds()
	if verify.Causes(t.LoginFailed) > 0 {
		s.Users.LoginFailures = loginCauses(t.LoginFailed)
		s.Users.LoginRetries = loginCauses(t.LoginRetried)
	}
	s.Logins = r.loginCost()
	s.Outages = r.outages()
	s.Groups = summary.GroupsSummary{Count: len(p.Groups), Friendships: len(p.Friends), BySize: map[string]int{}}
	for _, g := range p.Groups {
		s.Groups.BySize[fmt.Sprint(len(g.Members))]++
	}

	origin, perSec := r.Shared.Meter().PerSecond()
	m := summary.MessagesSummary{Planned: p.Planned(), Sent: verify.Sum(t.Sent), Acked: verify.Sum(t.Acked),
		SendFailed: verify.Sum(t.SendFailed), Unanswered: verify.Sum(t.Unanswered), Unsent: t.Unsent, PlannedRate: p.Rate, PerSecond: perSec,
		ByType: map[string]int64{}, Dispatches: t.Dispatched}
	if first, last := r.Shared.Meter().Span(); !first.IsZero() {
		m.FirstSendMs, m.LastSendMs = first.UnixMilli(), last.UnixMilli()
	}
	m.SetRates()
	for _, st := range p.Streams {
		m.Closed = m.Closed || !st.Open()
		m.Burst = m.Burst || st.Burst
	}
	if !m.Closed {
		m.PlannedSeconds = math.Round(p.Duration().Seconds()*1000) / 1000
	}
	if !origin.IsZero() {
		m.PerSecondStartMs = origin.UnixMilli()
		m.PlannedPerSecond = plannedPerSecond(p, origin.Sub(r.Shared.SendingSince()), len(m.PerSecond))
	}
	if m.Closed {
		_, m.OpenPerSecond = r.Shared.OpenMeter().PerSecond()
	}
	m.ByClass = classSends(p, r.Shared.ClassSends())
	for _, sess := range r.Shared.Sessions() {
		m.MaxSendLagMs = math.Max(m.MaxSendLagMs, float64(sess.MaxSendLag().Microseconds())/1000)
	}
	for _, kind := range p.Kinds() {
		k := verify.KindIndex(kind)
		m.ByType[verify.KindName(k)] = t.Sent[k]
	}
	s.Messages = m

	// Chatrooms are counted apart: what their members miss is a rate.
	d := summary.DeliveriesSummary{Expected: verify.Owed(t.Expected) - verify.Owed(rec.NotAttempted), NotAttempted: verify.Owed(rec.NotAttempted),
		PushedAfterPull: verify.Sum(t.PushedAfterPull), Pushed: verify.Owed(t.Pushed), ByPull: verify.Owed(t.Pulled),
		ByGapPull: verify.Owed(t.GapPulled), ByReturnPull: verify.Owed(t.CatchupPulled[verify.CatchupReturn]),
		ByReconnectPull: verify.Owed(t.CatchupPulled[verify.CatchupReconnect]), Duplicates: verify.Sum(t.Duplicates), OutOfOrder: verify.Sum(t.OutOfOrder),
		Lost: verify.Owed(rec.Lost), LostNeverStored: verify.Owed(rec.NeverStored), Late: verify.Owed(rec.Late), Unchecked: verify.Owed(rec.Unchecked), Unexpected: verify.Owed(rec.Unexpected), OfUnanswered: verify.Owed(rec.OfUnanswered), Corrupted: t.Corrupt, Foreign: t.Foreign,
		LostSample: rec.Sample, ByType: map[string]summary.DeliveriesByType{}}
	d.Received = d.Pushed + d.ByPull
	for _, kind := range p.Kinds() {
		k := verify.KindIndex(kind)
		d.ByType[verify.KindName(k)] = summary.DeliveriesByType{Expected: t.Expected[k] - rec.NotAttempted[k], NotAttempted: rec.NotAttempted[k],
			PushedAfterPull: t.PushedAfterPull[k], Received: t.Pushed[k] + t.Pulled[k],
			Duplicates: t.Duplicates[k], OutOfOrder: t.OutOfOrder[k], Lost: rec.Lost[k], LostNeverStored: rec.NeverStored[k], Late: rec.Late[k], Unchecked: rec.Unchecked[k]}
	}
	d.ByClass = byClass(p, t.ByClass, r.Shared.ClassSends())
	d.ByPopulation = byPopulation(p, t.ByPopulation)
	if len(p.Rooms) > 0 {
		r := verify.RoomIndex
		// Deliveries of sends the server never acknowledged (unanswered, or
		// failed) are apart, as they are from expected.
		d.Rooms = &summary.RoomsSummary{Expected: t.Expected[r], Missed: rec.Lost[r], BeforeJoin: t.BeforeJoin,
			OfUnanswered: rec.OfUnanswered[r], Unexpected: rec.Unexpected[r]}
		d.Rooms.Received = t.Pushed[r] + t.Pulled[r] - d.Rooms.OfUnanswered - d.Rooms.Unexpected
		d.Rooms.SetRate()
	}
	if w := p.Watchers(); w > 0 {
		d.Watchers = &summary.WatchersSummary{Users: w, Expected: t.WatchExpected, Received: rec.WatchMatched}
	}
	d.StoreCheck = r.storeCheckSummary()
	s.Deliveries = d
	s.Integrity = summary.IntegrityOf(d.Expected, d.Undelivered())

	e2e, ack := latency.NewHistogram(), latency.NewHistogram()
	var gen summary.GeneratorSummary
	for _, sess := range r.Shared.Sessions() {
		for k := 0; k < verify.Kinds; k++ {
			sess.Tally.E2E[k].MergeInto(e2e)
			sess.Tally.Ack[k].MergeInto(ack)
		}
		gen.VUs++
		gen.UserRanges = append(gen.UserRanges, [2]uint32{sess.Lo, sess.Hi})
	}
	s.Latency.E2E, s.Latency.Ack = summary.LatencyOf(e2e), summary.LatencyOf(ack)
	s.Latency.E2E.Negative = t.NegativeE2E
	s.Histograms = map[string]latency.Encoded{}
	hists := map[string]*latency.Histogram{"e2e": e2e, "ack": ack}
	if s.Logins.Count > 0 {
		hists["login"] = r.loginHistogram()
	}
	for name, h := range hists {
		if enc, err := h.Encode(); err == nil {
			s.Histograms[name] = enc
		}
	}
	s.Warnings = append(s.Warnings, r.Setup.Warnings...)
	if rec.NotAttemptedPartial {
		s.Warnings = append(s.Warnings, "users never online in a split run: deliveries owed them by senders in other segments are counted as lost")
	}
	if w := r.storm.warning(); w != "" {
		s.Warnings = append(s.Warnings, w)
	}
	if t.NegativeE2E > 0 && r.Segments <= 1 { // a merge of segments says it over all of them
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d deliveries arrived before they were created by the sender's clock: "+
			"the clocks of the generator processes disagree", t.NegativeE2E))
	}
	gen.PullRequests, gen.GapPullRequests = t.PullRequests, t.GapPullRequests
	gen.HeartbeatsSent, gen.HeartbeatsSkipped = t.HeartbeatsSent, t.HeartbeatsSkipped
	r.mu.Lock()
	lr := r.metrics
	r.mu.Unlock()
	if lr != nil {
		start, n := lr.goroutineSeries()
		if len(n) > 0 {
			gen.GoroutinesStartMs, gen.GoroutinesEverySeconds, gen.Goroutines = start.UnixMilli(), int(goroutineEvery/time.Second), n
		}
	}
	seg := r.Segment
	if seg == "" {
		seg = "0:1"
	}
	gen.Processes = []summary.GeneratorProcess{r.self.process(seg)}
	s.Generator = gen
	s.Versions = versions(r.Opts.Version)
	return s
}

// byClass is the arrivals of each class of the workload that sends, with
// how its senders paced: InFlight at a time, or one (open pacing sends
// each message after the previous one's acknowledgement).
func byClass(p *plan.Plan, counts []verify.ClassTotals, sent []engine.ClassSent) []summary.DeliveriesByClass {
	var w struct {
		Classes []struct {
			Kind string `json:"kind"`
		} `json:"classes"`
	}
	_ = json.Unmarshal(p.Workload, &w) // the plan marshalled it: only the kinds are wanted
	var out []summary.DeliveriesByClass
	for i, st := range p.Streams {
		if st.Total() == 0 && st.Until == 0 {
			continue // sends nothing
		}
		c := summary.DeliveriesByClass{Class: i + 1, InFlight: st.Window()}
		if i < len(w.Classes) {
			c.Kind = w.Classes[i].Kind
		}
		if i < len(counts) {
			c.Expected, c.Received, c.Duplicates, c.OutOfOrder = counts[i].Expected, counts[i].Received, counts[i].Duplicates, counts[i].OutOfOrder
		}
		if i < len(sent) {
			c.MaxInFlight = int(sent[i].MaxInFlight)
		}
		out = append(out, c)
	}
	return out
}

// byPopulation is what each population's users were owed and got.
func byPopulation(p *plan.Plan, counts []verify.ClassTotals) []summary.DeliveriesByPopulation {
	var out []summary.DeliveriesByPopulation
	for i, pp := range p.Populations {
		c := summary.DeliveriesByPopulation{Population: pp.Name, Users: pp.Users}
		if i < len(counts) {
			c.Expected, c.Received, c.Duplicates, c.OutOfOrder = counts[i].Expected, counts[i].Received, counts[i].Duplicates, counts[i].OutOfOrder
		}
		out = append(out, c)
	}
	return out
}

// classSends is what each class that sends sent.
func classSends(p *plan.Plan, sent []engine.ClassSent) []summary.ClassSends {
	var out []summary.ClassSends
	for i, st := range p.Streams {
		if (st.Total() == 0 && st.Until == 0) || i >= len(sent) {
			continue // sends nothing
		}
		c := summary.ClassSends{Class: i + 1, Open: st.Open(), Sent: sent[i].Sent, Unsent: sent[i].Unsent}
		if c.Open {
			c.PlannedSeconds = math.Round((st.Length()-st.Start()).Seconds()*1000) / 1000 // its own sending time, from its startAt
		}
		if !sent[i].First.IsZero() {
			c.FirstSendMs, c.LastSendMs = sent[i].First.UnixMilli(), sent[i].Last.UnixMilli()
		}
		out = append(out, c)
	}
	return out
}

// loginCost sums what the sessions' logins cost.
func (r *Run) loginCost() *summary.LoginsSummary {
	l := &summary.LoginsSummary{}
	if m, ok := r.Driver.(interface{ LoginMode() string }); ok {
		l.Mode = m.LoginMode()
	}
	for _, sess := range r.Shared.Sessions() {
		l.Count += sess.Logins.Count.Load()
		l.Failed += sess.Logins.Failed.Load()
		l.Requests += sess.Logins.Requests.Load()
	}
	l.SetPerLogin()
	l.TimeToOnline = summary.LatencyOf(r.loginHistogram())
	return l
}

func (r *Run) loginHistogram() *latency.Histogram {
	h := latency.NewHistogram()
	for _, sess := range r.Shared.Sessions() {
		sess.Logins.Online.MergeInto(h)
	}
	return h
}

// endpoint is the target's first endpoint, where it was set up.

// versions names what produced the figures: Go from the binary, imbench
// as the CLI passed it (git describe).
func versions(imbench string) map[string]string {
	v := map[string]string{"go": runtime.Version()}
	if imbench != "" {
		v["imbench"] = imbench
	}
	return v
}

// outages is the process's windows of users dropped, as summary.json has them.
func (r *Run) outages() *summary.Outages {
	ws, omitted := r.Shared.Outages()
	if len(ws) == 0 && omitted == 0 {
		return nil
	}
	out := &summary.Outages{Omitted: omitted}
	for _, w := range ws {
		o := summary.Outage{Start: w.Start.UTC(), Dropped: w.Dropped, Reconnects: w.Reconnects, GaveUp: w.GaveUp,
			ReconnectsPerSecond: w.ReconnectsPerSecond, PerSecondStart: w.Start.Unix()}
		if !w.End.IsZero() {
			o.End = w.End.UTC()
		}
		o.Finish()
		out.Windows = append(out.Windows, o)
	}
	return out
}

func loginCauses(a [verify.LoginCauses]int64) *summary.LoginCauses {
	return &summary.LoginCauses{Closed: a[engine.LoginClosed], NoAnswer: a[engine.LoginNoAnswer], Refused: a[engine.LoginRefused],
		ConnRefused: a[engine.LoginConnRefused], Other: a[engine.LoginOther], OpenFiles: a[engine.LoginOpenFiles], Ports: a[engine.LoginPorts]}
}

// plannedPerSecond is the plan's messages due in each of the run's own
// seconds, the first beginning at offset from the start of sending: as
// many seconds as were sent in or as the plan has messages due, those
// due before the first second counted in it. Nothing where no open class
// has a schedule.
func plannedPerSecond(p *plan.Plan, offset time.Duration, sent int) []int64 {
	total := p.DueBefore(p.Duration() + time.Nanosecond)
	if total == 0 {
		return nil
	}
	var out []int64
	var prev int64
	for i := 0; i < sent || prev < total; i++ {
		next := p.DueBefore(offset + time.Duration(i+1)*time.Second)
		out, prev = append(out, next-prev), next
	}
	return out
}
