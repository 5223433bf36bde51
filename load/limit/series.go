package limit

import (
	"fmt"
	"io"
	"time"

	"github.com/imbench/imbench/load/promrw"
)

// searchSeries writes a search's state to Prometheus (the dashboard's
// "Limit search" row): the step under way and its load, what each step
// achieved and whether it held, the limit and the knee so far.
type searchSeries struct {
	rw     *promrw.Writer
	labels map[string]string
}

func newSearchSeries(url string, searchID, scenario, target string, errs io.Writer) *searchSeries {
	if url == "" {
		return nil
	}
	logf := func(f string, a ...any) {
		if errs != nil {
			fmt.Fprintf(errs, "imbench: "+f+"\n", a...)
		}
	}
	return &searchSeries{rw: promrw.New(url, nil, logf),
		labels: map[string]string{"search_id": searchID, "scenario": scenario, "target": target}}
}

func (s *searchSeries) write(values map[string]float64) {
	if s == nil {
		return
	}
	ts := s.rw.Stamp(time.Now())
	var out []promrw.TimeSeries
	for name, v := range values {
		out = append(out, promrw.TimeSeries{Labels: promrw.Labels(s.labels, name), Samples: []promrw.Sample{{Value: v, Timestamp: ts}}})
	}
	s.rw.Write(out)
}

// starting says a step began at a load.
func (s *searchSeries) starting(n int, asked float64) {
	s.write(map[string]float64{"imbench_limit_step": float64(n), "imbench_limit_asked": asked})
}

// judged says how a step ended, and the interval so far.
func (s *searchSeries) judged(st Step, lo, hi float64) {
	held := 0.0
	if st.Held {
		held = 1
	}
	v := map[string]float64{"imbench_limit_achieved": st.Achieved, "imbench_limit_held": held, "imbench_limit_held_load": lo,
		"imbench_limit_step_e2e_p99_seconds": st.E2EP99 / 1000}
	if hi > 0 {
		v["imbench_limit_broken_load"] = hi
	}
	s.write(v)
}
