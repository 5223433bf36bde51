package report

import (
	"fmt"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

// outagesSection is the run's outages: users the server dropped and their
// way back (a reconnect storm, a gateway killed, a restart), each with the
// target's CPU around it from the CPU chart.
func (r *Report) outagesSection() (section, bool) {
	o := r.Summary.Outages
	if o == nil || len(o.Windows) == 0 {
		return section{}, false
	}
	sec := section{Title: "Outages", Paras: []string{"Windows in which users were dropped by the server and not yet " +
		"back: from the first drop to the moment the last of them was online again (its sync done). Users come " +
		"back with capped, jittered backoff and pull what they missed; the deliveries above count that."}}
	t := table{Head: []string{"Began", "Users dropped", "Back to all online", "Reconnects", "Peak reconnects/s", "Target CPU around it"}}
	for _, w := range o.Windows {
		back := "not all back by the end"
		if !w.End.IsZero() {
			back = fmt.Sprintf("%s s", dec(w.BackOnlineMs/1000, 1))
			if w.GaveUp > 0 {
				back += fmt.Sprintf(" (%d gave up)", w.GaveUp)
			}
		}
		t.Rows = append(t.Rows, []string{
			fmt.Sprintf("+%s s (%s UTC)", dec(w.Start.Sub(r.Summary.StartedAt).Seconds(), 1), w.Start.UTC().Format("15:04:05")),
			num(float64(w.Dropped)), back, num(float64(w.Reconnects)), num(float64(w.PeakReconnectsPerS)),
			r.targetCPUAround(w),
		})
	}
	sec.Tables = append(sec.Tables, t)
	if o.Omitted > 0 {
		sec.Paras = append(sec.Paras, fmt.Sprintf("%d smaller windows are not listed (the largest %d are).", o.Omitted, len(o.Windows)))
	}
	return sec, true
}

// targetCPUAround is the target's CPU, summed over its components, at its
// peak within a step of the window; Prometheus samples every few seconds,
// so a storm shorter than that shows as the sample that holds it.
func (r *Report) targetCPUAround(w summary.Outage) string {
	if r.Series == nil {
		return "no Prometheus data"
	}
	var chart *Chart
	for i := range r.Series.Charts {
		if r.Series.Charts[i].Title == "CPU per component" {
			chart = &r.Series.Charts[i]
		}
	}
	target := map[string]bool{}
	for _, x := range r.Series.Resources {
		if x.Role == "target" { // not what else ran on the host
			target[x.Component] = true
		}
	}
	if chart == nil || len(target) == 0 {
		return "not measured"
	}
	end := w.End
	if end.IsZero() {
		end = r.Summary.EndedAt
	}
	step := time.Duration(max(r.Series.StepSec, 1)) * time.Second
	from, to := float64(w.Start.Add(-step).Unix()), float64(end.Add(step).Unix())
	byTime := map[float64]float64{}
	for _, l := range chart.Lines {
		if !target[l.Name] {
			continue
		}
		for _, p := range l.Points {
			if p[0] >= from && p[0] <= to {
				byTime[p[0]] += p[1]
			}
		}
	}
	if len(byTime) == 0 {
		return "no samples"
	}
	peak := 0.0
	for _, v := range byTime {
		peak = max(peak, v)
	}
	return pct(peak) + " peak"
}
