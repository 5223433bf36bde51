package runner

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/imbench/imbench/internal/latency"
	"github.com/imbench/imbench/internal/summary"
)

// Thresholds are k6's, on the run's figures (summary.json, or the merge of
// a split run's parts): a metric name, optionally a tag filter, and
// expressions "<aggregation> <op> <number>". Counters take count and rate
// (per second of the run); integrity takes rate; latencies (ms) take avg,
// med, max and p(N); the *_avg/_p50/_p95/_p99/_max shorthands take value.
// Tag filters: {conv_type:single|group|room} for the deliveries' counters;
// {inflight:N} for deliveries, duplicates and out_of_order, summed over
// the workload's classes whose senders had N messages in flight (1: each
// send waits for its acknowledgement), so that a run may fail on disorder
// with 1 in flight and report it with 16.
type threshold struct {
	metric    string
	filterKey string // conv_type, inflight, or ""
	filter    string // its value
	agg       string
	op        string
	bound     float64
	src       string
}

var exprRE = regexp.MustCompile(`^\s*(count|rate|value|avg|max|med|p\(\s*[0-9]+(?:\.[0-9]+)?\s*\))\s*(<=|>=|===|==|!=|<|>)\s*(-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\s*$`)
var nameRE = regexp.MustCompile(`^([a-z0-9_]+)(?:\{(?:conv_type:(single|group|room)|inflight:([1-9][0-9]*))\})?$`)

// counters read from a summary, with their per-conv_type reading where the
// summary has one.
var counters = map[string]struct {
	all    func(s *summary.Summary) float64
	byType func(d summary.DeliveriesByType) float64
}{
	"sent":              {func(s *summary.Summary) float64 { return float64(s.Messages.Sent) }, nil},
	"acked":             {func(s *summary.Summary) float64 { return float64(s.Messages.Acked) }, nil},
	"send_failures":     {func(s *summary.Summary) float64 { return float64(s.Messages.SendFailed) }, nil},
	"unsent":            {func(s *summary.Summary) float64 { return float64(s.Messages.Unsent) }, nil},
	"unanswered":        {func(s *summary.Summary) float64 { return float64(s.Messages.Unanswered) }, nil},
	"expected":          {func(s *summary.Summary) float64 { return float64(s.Deliveries.Expected) }, func(d summary.DeliveriesByType) float64 { return float64(d.Expected) }},
	"deliveries":        {func(s *summary.Summary) float64 { return float64(s.Deliveries.Received) }, func(d summary.DeliveriesByType) float64 { return float64(d.Received) }},
	"lost":              {func(s *summary.Summary) float64 { return float64(s.Deliveries.Lost) }, func(d summary.DeliveriesByType) float64 { return float64(d.Lost) }},
	"late":              {func(s *summary.Summary) float64 { return float64(s.Deliveries.Late) }, func(d summary.DeliveriesByType) float64 { return float64(d.Late) }},
	"unchecked":         {func(s *summary.Summary) float64 { return float64(s.Deliveries.Unchecked) }, func(d summary.DeliveriesByType) float64 { return float64(d.Unchecked) }},
	"lost_never_stored": {func(s *summary.Summary) float64 { return float64(s.Deliveries.LostNeverStored) }, func(d summary.DeliveriesByType) float64 { return float64(d.LostNeverStored) }},
	"duplicates":        {func(s *summary.Summary) float64 { return float64(s.Deliveries.Duplicates) }, func(d summary.DeliveriesByType) float64 { return float64(d.Duplicates) }},
	"out_of_order":      {func(s *summary.Summary) float64 { return float64(s.Deliveries.OutOfOrder) }, func(d summary.DeliveriesByType) float64 { return float64(d.OutOfOrder) }},
	"corrupted":         {func(s *summary.Summary) float64 { return float64(s.Deliveries.Corrupted) }, nil},
	"unexpected":        {func(s *summary.Summary) float64 { return float64(s.Deliveries.Unexpected) }, nil},
	"of_unanswered":     {func(s *summary.Summary) float64 { return float64(s.Deliveries.OfUnanswered) }, nil},
	"room_missed":       {func(s *summary.Summary) float64 { return roomMissed(s) }, nil},
	"connect_errors":    {func(s *summary.Summary) float64 { return float64(s.Users.ConnectErrors) }, nil},
	"disconnects":       {func(s *summary.Summary) float64 { return float64(s.Users.Disconnects) }, nil},
	"reconnects":        {func(s *summary.Summary) float64 { return float64(s.Users.Reconnects) }, nil},
	"logins":            {func(s *summary.Summary) float64 { return float64(s.Users.Logins) }, nil},
	"login_failures":    {func(s *summary.Summary) float64 { return float64(s.Users.LoginFailures.Total()) }, nil},
	"login_retries":     {func(s *summary.Summary) float64 { return float64(s.Users.LoginRetries.Total()) }, nil},
	"never_online":      {func(s *summary.Summary) float64 { return float64(s.Users.NeverOnline) }, nil},
	"not_attempted":     {func(s *summary.Summary) float64 { return float64(s.Deliveries.NotAttempted) }, func(d summary.DeliveriesByType) float64 { return float64(d.NotAttempted) }},
	"pushed_after_pull": {func(s *summary.Summary) float64 { return float64(s.Deliveries.PushedAfterPull) }, func(d summary.DeliveriesByType) float64 { return float64(d.PushedAfterPull) }},
}

// classCounters are the counters the summary keeps per workload class,
// which {inflight:N} reads.
var classCounters = map[string]func(c summary.DeliveriesByClass) float64{
	"deliveries":   func(c summary.DeliveriesByClass) float64 { return float64(c.Received) },
	"duplicates":   func(c summary.DeliveriesByClass) float64 { return float64(c.Duplicates) },
	"out_of_order": func(c summary.DeliveriesByClass) float64 { return float64(c.OutOfOrder) },
}

// trends are latencies with a histogram in the summary.
var trends = map[string]string{"e2e_latency": "e2e", "ack_latency": "ack", "login_time": "login"}

// ThresholdMetrics names every metric a threshold may use.
func ThresholdMetrics() []string {
	names := slices.Collect(maps.Keys(counters))
	names = append(names, "integrity", "send_pace")
	for t := range trends {
		names = append(names, t)
	}
	for _, l := range []string{"e2e", "ack"} {
		for _, s := range []string{"avg", "p50", "p95", "p99", "max"} {
			names = append(names, l+"_"+s)
		}
	}
	slices.Sort(names)
	return names
}

func roomMissed(s *summary.Summary) float64 {
	if s.Deliveries.Rooms == nil {
		return 0
	}
	return float64(s.Deliveries.Rooms.Missed)
}

func parseThreshold(name, expr string) (threshold, error) {
	nm := nameRE.FindStringSubmatch(name)
	if nm == nil || !slices.Contains(ThresholdMetrics(), nm[1]) {
		return threshold{}, fmt.Errorf("threshold on %q: unknown metric (known: %s)", name, strings.Join(ThresholdMetrics(), ", "))
	}
	m := exprRE.FindStringSubmatch(expr)
	if m == nil {
		return threshold{}, fmt.Errorf("threshold %s %q: want <aggregation> <op> <number>, e.g. count==0, value<1000, p(99)<500", name, expr)
	}
	bound, err := strconv.ParseFloat(m[3], 64)
	if err != nil {
		return threshold{}, fmt.Errorf("threshold %s %q: %v", name, expr, err)
	}
	t := threshold{metric: nm[1], agg: strings.ReplaceAll(m[1], " ", ""), op: m[2], bound: bound, src: expr}
	switch {
	case nm[2] != "":
		t.filterKey, t.filter = "conv_type", nm[2]
	case nm[3] != "":
		t.filterKey, t.filter = "inflight", nm[3]
	}
	if strings.HasPrefix(t.agg, "p(") {
		if q, _ := strconv.ParseFloat(t.agg[2:len(t.agg)-1], 64); q > 100 {
			return t, fmt.Errorf("threshold %s %q: p(N) takes 0 ≤ N ≤ 100", name, expr)
		}
	}
	_, isCounter := counters[t.metric]
	_, isTrend := trends[t.metric]
	ok := false
	switch {
	case isCounter:
		ok = t.agg == "count" || t.agg == "rate"
		if t.filterKey == "conv_type" && counters[t.metric].byType == nil {
			return t, fmt.Errorf("threshold %s: %s has no per-conv_type figure", name, t.metric)
		}
		if t.filterKey == "inflight" && classCounters[t.metric] == nil {
			return t, fmt.Errorf("threshold %s: %s has no per-class figure (inflight takes %s)", name, t.metric,
				strings.Join(slices.Sorted(maps.Keys(classCounters)), ", "))
		}
	case t.metric == "integrity" || t.metric == "send_pace":
		ok = t.agg == "rate" || t.agg == "value"
	case isTrend:
		ok = t.agg == "avg" || t.agg == "med" || t.agg == "max" || strings.HasPrefix(t.agg, "p(")
	default: // e2e_p99 and the like
		ok = t.agg == "value"
	}
	if !ok {
		return t, fmt.Errorf("threshold %s %q: %s does not take %s", name, expr, t.metric, t.agg)
	}
	if t.filterKey != "" && !isCounter {
		return t, fmt.Errorf("threshold %s: only counters are kept per %s", name, t.filterKey)
	}
	return t, nil
}

// ThresholdResult is one expression checked.
type ThresholdResult = summary.Threshold

// CheckThresholds evaluates every threshold on a summary, sorted by metric.
func CheckThresholds(th map[string]Expressions, s *summary.Summary) ([]ThresholdResult, error) {
	var out []ThresholdResult
	for _, name := range slices.Sorted(maps.Keys(th)) {
		for _, expr := range th[name] {
			t, err := parseThreshold(name, expr)
			if err != nil {
				return nil, err
			}
			v, ok, err := t.value(s)
			if err != nil {
				return nil, err
			}
			r := ThresholdResult{Metric: name, Expr: expr, Actual: v, Absent: !ok}
			r.Passed = ok && compare(v, t.op, t.bound)
			if !ok {
				r.Passed = true // k6 too: a trend without samples fails nothing
			}
			out = append(out, r)
		}
	}
	return out, nil
}

func (t threshold) value(s *summary.Summary) (float64, bool, error) {
	if c, ok := counters[t.metric]; ok {
		v := c.all(s)
		switch t.filterKey {
		case "conv_type":
			v = c.byType(s.Deliveries.ByType[t.filter])
			if t.metric == "sent" {
				v = float64(s.Messages.ByType[t.filter])
			}
		case "inflight":
			var found bool
			if v, found = t.inFlight(s); !found {
				return 0, false, nil // no class paced so: no samples, as k6's submetric without any
			}
		}
		if t.agg == "rate" {
			secs := s.EndedAt.Sub(s.StartedAt).Seconds()
			if secs <= 0 {
				return 0, false, nil
			}
			return v / secs, true, nil
		}
		return v, true, nil
	}
	if t.metric == "send_pace" {
		v, ok := s.Messages.Pace()
		return v, ok, nil
	}
	if t.metric == "integrity" {
		if s.Deliveries.Expected == 0 {
			return 0, false, nil
		}
		return s.Integrity, true, nil
	}
	if name, ok := trends[t.metric]; ok {
		enc, has := s.Histograms[name]
		if !has {
			return 0, false, nil
		}
		h, err := enc.Decode()
		if err != nil {
			return 0, false, fmt.Errorf("threshold on %s: %w", t.metric, err)
		}
		return trendValue(h, t.agg)
	}
	l := s.Latency.E2E
	if strings.HasPrefix(t.metric, "ack_") {
		l = s.Latency.Ack
	}
	if l.Count == 0 {
		return 0, false, nil
	}
	_, stat, _ := strings.Cut(t.metric, "_")
	return map[string]float64{"avg": l.Avg, "p50": l.P50, "p95": l.P95, "p99": l.P99, "max": l.Max}[stat], true, nil
}

// inFlight sums the metric over the classes whose senders had the
// filter's number of messages in flight; found is false when none had.
// Chatrooms are left out, as the deliveries' own counters leave them.
func (t threshold) inFlight(s *summary.Summary) (v float64, found bool) {
	n, _ := strconv.Atoi(t.filter)
	for _, c := range s.Deliveries.ByClass {
		if c.InFlight == n && c.Kind != "chatroom" {
			v, found = v+classCounters[t.metric](c), true
		}
	}
	return v, found
}

func trendValue(h *latency.Histogram, agg string) (float64, bool, error) {
	if h.Count() == 0 {
		return 0, false, nil
	}
	switch agg {
	case "avg":
		return h.MeanMs(), true, nil
	case "med":
		return h.QuantileMs(0.5), true, nil
	case "max":
		return h.MaxMs(), true, nil
	}
	q, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(agg, "p("), ")"), 64)
	if err != nil || q < 0 || q > 100 {
		return 0, false, fmt.Errorf("%s: want p(N) with 0 ≤ N ≤ 100", agg)
	}
	return h.QuantileMs(q / 100), true, nil
}

func compare(v float64, op string, b float64) bool {
	switch op {
	case "<":
		return v < b
	case "<=":
		return v <= b
	case ">":
		return v > b
	case ">=":
		return v >= b
	case "==", "===":
		return v == b
	case "!=":
		return v != b
	}
	return false
}

// ThresholdLines prints the checks as k6 did: ✓ or ✗, the expression and
// the figure.
func ThresholdLines(rs []ThresholdResult) string {
	if len(rs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("thresholds:\n")
	for _, r := range rs {
		mark := "✓"
		if !r.Passed {
			mark = "✗"
		}
		actual := strconv.FormatFloat(r.Actual, 'f', -1, 64)
		if r.Absent {
			actual = "no samples"
		}
		implicit := ""
		if r.Implicit {
			implicit = ", imbench's integrity default"
		}
		fmt.Fprintf(&b, "  %s %s %s (%s%s)\n", mark, r.Metric, r.Expr, actual, implicit)
	}
	return b.String()
}
