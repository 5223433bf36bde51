// Package limit searches for the most load a server holds within a stated
// objective: it runs a scenario step after step at rising load (the open
// classes' message rate, or the users held online), evaluates the
// objective on each step's own verified figures, narrows the interval
// between the last step that held and the first that broke to a stated
// resolution, and names what gave out first at the knee: a process group
// of the server, the machine, or the generator itself.
package limit

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/runner"
)

// Objective is what a step must meet: conditions on its figures in the
// thresholds' names ("e2e_p99<1000,lost==0"), each a threshold of the run.
type Objective struct {
	Text       string
	Thresholds map[string]runner.Expressions
}

var condRE = regexp.MustCompile(`^\s*([a-z0-9_]+(?:\{[a-z_]+:[a-z0-9]+\})?)\s*(<=|>=|==|!=|<|>)\s*(-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\s*$`)

// valueMetrics take their figure as it is (the latency shorthands, in ms);
// integrity a share; every other name is a counter, compared by its count.
var valueMetrics = []string{"e2e_avg", "e2e_p50", "e2e_p95", "e2e_p99", "e2e_max", "ack_avg", "ack_p50", "ack_p95", "ack_p99", "ack_max"}

// loginMetrics are the login time's, read off its trend (login_time).
var loginMetrics = map[string]string{"login_avg": "avg", "login_p50": "med", "login_p95": "p(95)", "login_p99": "p(99)", "login_max": "max"}

// ParseObjective reads "name<op>number" conditions separated by commas:
// a latency shorthand (e2e_p99, ack_avg, login_p99, … in ms), integrity (a share) or
// a counter (lost, late, unanswered, duplicates, …, by its count). Each is
// checked as the run's thresholds are, so a misspelt name is refused here,
// before any load.
func ParseObjective(text string) (Objective, error) {
	o := Objective{Text: strings.TrimSpace(text), Thresholds: map[string]runner.Expressions{}}
	if o.Text == "" {
		return o, fmt.Errorf("the objective is empty: give conditions such as e2e_p99<1000,lost==0")
	}
	for _, part := range strings.Split(o.Text, ",") {
		m := condRE.FindStringSubmatch(part)
		if m == nil {
			return o, fmt.Errorf("objective %q: %q is not name<op>number (e2e_p99<1000, lost==0, integrity>=0.999)", o.Text, strings.TrimSpace(part))
		}
		name, op, num := m[1], m[2], m[3]
		agg := "count"
		if a, ok := loginMetrics[name]; ok {
			name, agg = "login_time", a
		}
		switch {
		case slices.Contains(valueMetrics, name):
			agg = "value"
		case name == "integrity":
			agg = "rate"
		}
		o.Thresholds[name] = append(o.Thresholds[name], agg+op+num)
	}
	// What the thresholds refuse (an unknown name) is refused now.
	if _, err := runner.CheckThresholds(o.Thresholds, &summary.Summary{}); err != nil {
		return o, fmt.Errorf("objective %q: %w", o.Text, err)
	}
	return o, nil
}

// Check evaluates the objective on a step's summary: whether it held, and
// the conditions it broke with their figures.
func (o Objective) Check(s *summary.Summary) (held bool, broken []string, err error) {
	rs, err := runner.CheckThresholds(o.Thresholds, s)
	if err != nil {
		return false, nil, err
	}
	held = true
	for _, r := range rs {
		if !r.Passed {
			held = false
			broken = append(broken, fmt.Sprintf("%s %s (%s)", r.Metric, r.Expr, strconv.FormatFloat(r.Actual, 'g', 6, 64)))
		}
	}
	return held, broken, nil
}

// Figures are the latency figures (valueMetrics) the objective names, off
// a step's summary, by name; a trend without samples is left out.
func (o Objective) Figures(s *summary.Summary) map[string]float64 {
	rs, err := runner.CheckThresholds(o.Thresholds, s)
	if err != nil {
		return nil
	}
	var f map[string]float64
	for _, r := range rs {
		if slices.Contains(valueMetrics, r.Metric) && !r.Absent {
			if f == nil {
				f = map[string]float64{}
			}
			f[r.Metric] = r.Actual
		}
	}
	return f
}

// latencyNamed is the objective's first latency condition's name (e2e_p99,
// ack_avg, …), "" where it states none.
func latencyNamed(obj string) string {
	for _, part := range strings.Split(obj, ",") {
		if m := condRE.FindStringSubmatch(part); m != nil && slices.Contains(valueMetrics, m[1]) {
			return m[1]
		}
	}
	return ""
}

// Deciding is the figure that broke a step's objective: its first broken
// latency condition's, else its first broken counter's ("" where it held).
func (o Objective) Deciding(s *summary.Summary) (metric string, actual float64) {
	rs, err := runner.CheckThresholds(o.Thresholds, s)
	if err != nil {
		return "", 0
	}
	for _, r := range rs {
		if !r.Passed && (metric == "" || slices.Contains(valueMetrics, r.Metric) && !slices.Contains(valueMetrics, metric)) {
			metric, actual = r.Metric, r.Actual
		}
	}
	return metric, actual
}
