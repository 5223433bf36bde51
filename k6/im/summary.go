package im

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/grafana/sobek"

	"github.com/imbench/imbench/k6/im/plan"
	"github.com/imbench/imbench/k6/im/verify"
)

// Summary is results/<run>/summary.json: every figure is counted in this run.
type Summary struct {
	RunID      string            `json:"run_id"`
	Scenario   string            `json:"scenario"`
	Purpose    string            `json:"purpose,omitempty"`
	System     string            `json:"system"`
	Target     string            `json:"target"`
	TargetAPI  string            `json:"target_api"`
	Segment    string            `json:"execution_segment"`
	StartedAt  time.Time         `json:"started_at"`
	EndedAt    time.Time         `json:"ended_at"`
	Params     plan.Integration  `json:"params"`
	Users      UsersSummary      `json:"users"`
	Groups     GroupsSummary     `json:"groups"`
	Messages   MessagesSummary   `json:"messages"`
	Deliveries DeliveriesSummary `json:"deliveries"`
	Integrity  float64           `json:"integrity"`
	Latency    struct {
		E2E LatencySummary `json:"e2e"`
		Ack LatencySummary `json:"ack"`
	} `json:"latency_ms"`
	Generator GeneratorSummary `json:"generator"`
}

type UsersSummary struct {
	Registered      int   `json:"registered"`
	NewlyRegistered int   `json:"newly_registered"`
	PlannedOnline   int   `json:"planned_immediate"`
	PlannedLate     int   `json:"planned_late"`
	OnlinePeak      int64 `json:"online_peak"`
	Logins          int64 `json:"logins"`
	LateLogins      int64 `json:"late_logins"`
	ConnectErrors   int64 `json:"connect_errors"`
	Disconnects     int64 `json:"disconnects"`
	Reconnects      int64 `json:"reconnects"`
	Kicks           int64 `json:"kicks"`
}

type GroupsSummary struct {
	Count       int            `json:"count"`
	Friendships int            `json:"friendships"`
	BySize      map[string]int `json:"by_size"` // members → groups of that size
}

type MessagesSummary struct {
	Planned        int              `json:"planned"`
	Sent           int64            `json:"sent"`
	Acked          int64            `json:"acked"`
	SendFailed     int64            `json:"send_failed"`
	PeakPerSecond  int64            `json:"peak_per_second"`
	AvgPerSecond   float64          `json:"avg_per_second"`
	PlannedRate    float64          `json:"planned_rate"`
	MaxSendLagMs   float64          `json:"max_send_lag_ms"`
	PerSecond      []int64          `json:"per_second"`
	PerSecondStart int64            `json:"per_second_start"`
	ByType         map[string]int64 `json:"sent_by_type"`
}

type DeliveriesSummary struct {
	Expected   int64                       `json:"expected"`
	Received   int64                       `json:"received"`
	Pushed     int64                       `json:"pushed"`
	ByPull     int64                       `json:"by_pull"`
	ByGapPull  int64                       `json:"by_gap_pull"`
	Duplicates int64                       `json:"duplicates"`
	OutOfOrder int64                       `json:"out_of_order"`
	Lost       int64                       `json:"lost"`
	Unexpected int64                       `json:"unexpected"`
	Corrupted  int64                       `json:"corrupted"`
	Foreign    int64                       `json:"foreign"`
	LostSample []verify.LostDelivery       `json:"lost_sample,omitempty"`
	ByType     map[string]DeliveriesByType `json:"by_type"`
}

type DeliveriesByType struct {
	Expected   int64 `json:"expected"`
	Received   int64 `json:"received"`
	Duplicates int64 `json:"duplicates"`
	OutOfOrder int64 `json:"out_of_order"`
	Lost       int64 `json:"lost"`
}

type LatencySummary struct {
	Count int64   `json:"count"`
	Avg   float64 `json:"avg"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

type GeneratorSummary struct {
	VUs            int   `json:"vus"`
	PullRequests   int64 `json:"pull_requests"`
	HeartbeatsSent int64 `json:"heartbeats_sent"`
}

func latencyOf(h *verify.Histogram) LatencySummary {
	r := func(v float64) float64 { return math.Round(v*1000) / 1000 }
	return LatencySummary{Count: h.Count(), Avg: r(h.MeanMs()), P50: r(h.QuantileMs(0.5)), P95: r(h.QuantileMs(0.95)),
		P99: r(h.QuantileMs(0.99)), Max: r(h.MaxMs())}
}

// BuildSummary assembles the run's summary from its tallies.
func (r *Run) BuildSummary() Summary {
	rec, _ := r.reconciled()
	t := r.Shared.Totals()
	p := r.Plan
	s := Summary{RunID: r.ID, Scenario: p.Name, Purpose: p.Purpose, System: r.Target.System, Target: r.Target.Name,
		TargetAPI: r.Target.API, Segment: r.Segment, StartedAt: r.StartedAt.UTC(), Params: r.Params}
	r.mu.Lock()
	s.EndedAt = r.endedAt.UTC()
	r.mu.Unlock()

	s.Users = UsersSummary{Registered: p.Users, NewlyRegistered: r.Setup.Registered,
		PlannedOnline: p.Count(plan.Immediate), PlannedLate: p.Count(plan.Late), OnlinePeak: r.Shared.Peak(),
		Logins: t.LoginsImmediate + t.LoginsLate, LateLogins: t.LoginsLate, ConnectErrors: t.ConnectErrors,
		Disconnects: t.Disconnects, Reconnects: t.Reconnects, Kicks: t.Kicks}
	s.Groups = GroupsSummary{Count: len(p.Groups), Friendships: len(p.Friends), BySize: map[string]int{}}
	for _, g := range p.Groups {
		s.Groups.BySize[fmt.Sprint(len(g.Members))]++
	}

	start, perSec := r.Shared.Meter().PerSecond()
	m := MessagesSummary{Planned: len(p.Messages), Sent: verify.Sum(t.Sent), Acked: verify.Sum(t.Acked),
		SendFailed: verify.Sum(t.SendFailed), PlannedRate: p.Rate, PerSecond: perSec, PerSecondStart: start,
		ByType: map[string]int64{}}
	for _, v := range perSec {
		m.PeakPerSecond = max(m.PeakPerSecond, v)
	}
	m.AvgPerSecond = math.Round(r.Shared.Meter().AvgRate()*100) / 100
	for _, sess := range r.Shared.Sessions() {
		m.MaxSendLagMs = math.Max(m.MaxSendLagMs, float64(sess.MaxSendLag().Microseconds())/1000)
	}
	for k := 0; k < verify.Kinds; k++ {
		m.ByType[verify.KindName(k)] = t.Sent[k]
	}
	s.Messages = m

	d := DeliveriesSummary{Expected: verify.Sum(t.Expected), Pushed: verify.Sum(t.Pushed), ByPull: verify.Sum(t.Pulled),
		ByGapPull: verify.Sum(t.GapPulled), Duplicates: verify.Sum(t.Duplicates), OutOfOrder: verify.Sum(t.OutOfOrder),
		Lost: verify.Sum(rec.Lost), Unexpected: verify.Sum(rec.Unexpected), Corrupted: t.Corrupt, Foreign: t.Foreign,
		LostSample: rec.Sample, ByType: map[string]DeliveriesByType{}}
	d.Received = d.Pushed + d.ByPull
	for k := 0; k < verify.Kinds; k++ {
		d.ByType[verify.KindName(k)] = DeliveriesByType{Expected: t.Expected[k], Received: t.Pushed[k] + t.Pulled[k],
			Duplicates: t.Duplicates[k], OutOfOrder: t.OutOfOrder[k], Lost: rec.Lost[k]}
	}
	s.Deliveries = d
	if d.Expected > 0 {
		s.Integrity = math.Round(float64(d.Expected-d.Lost)/float64(d.Expected)*1e6) / 1e6
	}

	e2e, ack := verify.NewHistogram(), verify.NewHistogram()
	var gen GeneratorSummary
	for _, sess := range r.Shared.Sessions() {
		for k := 0; k < verify.Kinds; k++ {
			sess.Tally.E2E[k].MergeInto(e2e)
			sess.Tally.Ack[k].MergeInto(ack)
		}
		gen.VUs++
	}
	s.Latency.E2E, s.Latency.Ack = latencyOf(e2e), latencyOf(ack)
	gen.PullRequests, gen.HeartbeatsSent = t.PullRequests, t.HeartbeatsSent
	s.Generator = gen
	return s
}

// Summary writes results/<run>/summary.json and returns the seed-style table
// for handleSummary: export function handleSummary(data) { return im.summary(data) }.
func (mi *ModuleInstance) Summary(_ sobek.Value) (map[string]any, error) {
	mi.root.mu.Lock()
	run := mi.root.last
	mi.root.mu.Unlock()
	if run == nil {
		return map[string]any{"stdout": "imbench: no run took place (setup did not finish)\n"}, nil
	}
	if run.Shared == nil {
		return nil, errors.New("im.summary: the run has no state")
	}
	s := run.BuildSummary()
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	dir := run.resultDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("im.summary: %w", err)
	}
	name := "summary.json"
	if run.Segment != "" && run.Segment != "0:1" {
		name = "summary-" + strings.NewReplacer("/", "_", ":", "-").Replace(run.Segment) + ".json"
	}
	return map[string]any{"stdout": s.Table() + "\nsummary: " + filepath.Join(dir, name) + "\n",
		filepath.Join(dir, name): string(raw) + "\n"}, nil
}

// Table renders the seed's result table.
func (s Summary) Table() string {
	var b strings.Builder
	row := func(k, v string) { fmt.Fprintf(&b, "| %-22s | %s |\n", k, v) }
	fmt.Fprintf(&b, "\nimbench %s on %s (%s), run %s\n\n", s.Scenario, s.Target, s.TargetAPI, s.RunID)
	row("Parameter/Result", "Value")
	b.WriteString("|------------------------|-------|\n")
	if s.Purpose != "" {
		row("Test Purpose", s.Purpose)
	}
	u := s.Users
	row("User Count", fmt.Sprintf("%d users, %d logged in at once (peak online %d), %d logged in late",
		u.Registered, u.Logins-u.LateLogins, u.OnlinePeak, u.LateLogins))
	var sizes []string
	for size, n := range s.Groups.BySize {
		sizes = append(sizes, fmt.Sprintf("%d of %s members", n, size))
	}
	row("Group Count & Size", fmt.Sprintf("%d groups (%s), %d friendships", s.Groups.Count, strings.Join(sizes, ", "), s.Groups.Friendships))
	row("Message Rate", fmt.Sprintf("Peak %d msg/s, average %.1f msg/s (planned %.0f msg/s)", s.Messages.PeakPerSecond, s.Messages.AvgPerSecond, s.Messages.PlannedRate))
	d := s.Deliveries
	row("Total Messages", fmt.Sprintf("%d sent, %d acknowledged, %d failed; %d deliveries (%d pushed, %d pulled)",
		s.Messages.Sent, s.Messages.Acked, s.Messages.SendFailed, d.Received, d.Pushed, d.ByPull))
	row("Message Integrity", integrityText(s))
	row("Duplicates / Out of order", fmt.Sprintf("%d / %d", d.Duplicates, d.OutOfOrder))
	e := s.Latency.E2E
	row("Average Latency", fmt.Sprintf("%.3f seconds", e.Avg/1000))
	row("Maximum Latency", fmt.Sprintf("%.3f seconds", e.Max/1000))
	row("E2E p50 / p95 / p99", fmt.Sprintf("%.1f / %.1f / %.1f ms over %d deliveries", e.P50, e.P95, e.P99, e.Count))
	a := s.Latency.Ack
	row("Ack avg / p99 / max", fmt.Sprintf("%.1f / %.1f / %.1f ms", a.Avg, a.P99, a.Max))
	row("Connections", fmt.Sprintf("%d connect errors, %d disconnects, %d reconnects", u.ConnectErrors, u.Disconnects, u.Reconnects))
	return b.String()
}

func integrityText(s Summary) string {
	d := s.Deliveries
	switch {
	case d.Expected == 0:
		return "n/a (no deliveries were expected)"
	case d.Lost == 0 && d.Corrupted == 0:
		return fmt.Sprintf("100%% (all %d expected deliveries arrived)", d.Expected)
	}
	return fmt.Sprintf("%.4f%% (%d of %d expected deliveries lost, %d corrupted)",
		s.Integrity*100, d.Lost, d.Expected, d.Corrupted)
}
