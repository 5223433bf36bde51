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
