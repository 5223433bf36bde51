package report

import (
	"regexp"
	"strings"
	"testing"
)

// Servers whose loads span more than ten times share a logarithmic load
// axis, from a tick at or below the least load to one at or above the
// most; closer loads keep a linear axis from 0.
func TestLoadAxis(t *testing.T) {
	tick := regexp.MustCompile(`text-anchor="middle">([0-9]+)</text>`)
	for _, c := range []struct {
		lo, hi float64
		ticks  string
		log    bool
	}{
		{138, 1857, "100 200 500 1000 2000", true},
		{99, 1000, "50 100 200 500 1000", true},
		{100, 400, "0 100 200 300 400", false},
	} {
		cmp := Comparison{Servers: []ServerColumn{{Steps: []LimitPoint{{Sent: c.lo}}}, {Steps: []LimitPoint{{Sent: c.hi}}}}}
		var b strings.Builder
		x := loadAxis(&b, cmp, c.hi)
		var got []string
		for _, m := range tick.FindAllStringSubmatch(b.String(), -1) {
			got = append(got, m[1])
		}
		if strings.Join(got, " ") != c.ticks || strings.Contains(b.String(), "log scale") != c.log {
			t.Errorf("loads %g–%g: ticks %v, want %s (log %v)\n%s", c.lo, c.hi, got, c.ticks, c.log, b.String())
		}
		if !(x(c.lo) >= spl && x(c.lo) < x(c.hi) && x(c.hi) <= scw-spr) {
			t.Errorf("loads %g–%g drawn at %.1f and %.1f, outside the plot", c.lo, c.hi, x(c.lo), x(c.hi))
		}
	}
}

// The comparison says where its latency chart clips and writes each
// clipped figure; a step that met the objective but sent less than asked
// is drawn apart from one that broke it; the limit row gives numbers and
// what decided them, the generator's stop and a busy machine's included.
func TestTheComparisonSaysItsFigures(t *testing.T) {
	c := Comparison{Objective: "e2e_p99<1000", Latency: "e2e_p99", Servers: []ServerColumn{
		{Name: "openim", LimitID: "l1", Limit: 18, Knee: 27, KneeConfirmed: true, Confirmed: true,
			Steps: []LimitPoint{{Sent: 18, Latency: 300, Held: true}, {Sent: 21.7, Latency: 400, FellShort: true}, {Sent: 27, Latency: 15663}}},
		{Name: "wildfire", LimitID: "l2", Limit: 92.1, Knee: 101.1, Generator: true, KneeEvidence: "repeated: e2e_p99 …",
			Steps: []LimitPoint{{Sent: 92, Latency: 200, Held: true}, {Sent: 101, Latency: 4090}}},
		{Name: "wukongim", LimitID: "l3", Undetermined: true, HighestHeld: 400}}}
	chart := latencyChart(c)
	for _, want := range []string{`data-clip="2000"`, `▲ 15,663 ms`, `▲ 4,090 ms`, `data-short="1"`, "met the objective, but sent less than asked"} {
		if !strings.Contains(chart, want) {
			t.Errorf("%s not in the chart:\n%s", want, chart)
		}
	}
	if page := ComparisonHTML(c); !strings.Contains(page, "; the axis stops at 2,000 ms (twice the objective): a step above it is drawn at the top, ▲ its figure</figcaption>") {
		t.Errorf("the caption does not say where the chart clips:\n%s", page)
	}
	for i, want := range []string{
		"18 msg/s (held again) / 27 msg/s (broke twice)",
		"92.1 msg/s / 101 msg/s, its break repeated while other processes ran; the generator stopped the search above it (its limit, not the server's)",
		"undetermined on this machine (400 msg/s held, but other processes kept taking the cores above it)"} {
		if got := limitCell(c.Servers[i]); got != want {
			t.Errorf("limit cell %q, want %q", got, want)
		}
	}
}
