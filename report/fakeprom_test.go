package report

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeProm answers the report's queries from a made-up host: Prometheus
// had samples at the times up says, the target's and the generator's
// process groups, and what the runs pushed.
type fakeProm struct {
	started   time.Time
	up        func(t time.Time) bool // Prometheus had a sample at t
	groups    map[string][4]float64  // process group → CPU avg, CPU peak, RSS avg, RSS peak
	own       *[4]float64            // the run's own generator series, if it pushed them
	otherRuns map[string]string      // run id → target of runs that pushed during the window
	// charted are the process groups a per-component chart's query finds
	// (none: one series, the target's).
	charted []string
	// traffic: the latency rules had a value at t (nil: whenever up)
	traffic func(t time.Time) bool
	// targetUp: a scrape job of the target's was up at t (nil: whenever up)
	targetUp func(t time.Time) bool
	// server: the run's own target series, component → CPU avg, CPU peak,
	// memory avg, memory peak, and its processes' pids
	server map[string][4]float64
	pids   map[string][]string
	procs  map[string]float64 // a group's processes (absent: 1)
}

func (f *fakeProm) serve(t *testing.T) Prom {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		var data any
		switch r.URL.Path {
		case "/api/v1/status/runtimeinfo":
			data = map[string]any{"startTime": f.started.Format(time.RFC3339Nano)}
		case "/api/v1/query_range":
			data = map[string]any{"resultType": "matrix", "result": f.rangeResult(q.Get("query"), q.Get("start"), q.Get("end"), q.Get("step"))}
		case "/api/v1/query":
			data = map[string]any{"resultType": "vector", "result": f.instant(q.Get("query"), q.Get("time"))}
		default:
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": data})
	}))
	t.Cleanup(srv.Close)
	return Prom{URL: srv.URL}
}

func parseSec(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// rangeResult is one series with a point at every step Prometheus had a
// sample: count(up) and every chart alike.
func (f *fakeProm) rangeResult(expr, start, end, step string) []any {
	var values [][2]any
	for t := parseSec(start); t <= parseSec(end); t += parseSec(step) {
		quiet := strings.Contains(expr, "_latency_seconds:") && f.traffic != nil && !f.traffic(unix(t)) ||
			strings.Contains(expr, "up{job=~") && f.targetUp != nil && !f.targetUp(unix(t))
		if f.up(unix(t)) && !quiet {
			values = append(values, [2]any{t, "1"})
		}
	}
	if len(values) == 0 {
		return nil
	}
	if strings.Contains(expr, "imbench:component_") && len(f.charted) > 0 {
		var out []any
		for _, g := range f.charted {
			out = append(out, map[string]any{"metric": map[string]string{"component": g}, "values": values})
		}
		return out
	}
	return []any{map[string]any{"metric": map[string]string{"component": "imbench-target"}, "values": values}}
}

func (f *fakeProm) instant(expr, at string) []any {
	sample := func(labels map[string]string, v float64) any {
		return map[string]any{"metric": labels, "value": [2]any{parseSec(at), fmt.Sprint(v)}}
	}
	pick := func(v [4]float64) (float64, bool) {
		cpu := strings.Contains(expr, "cpu")
		switch {
		case strings.Contains(expr, "count("), strings.Contains(expr, "processes"):
			return 1, true
		case strings.Contains(expr, "avg_over_time") && cpu:
			return v[0], true
		case strings.Contains(expr, "max_over_time") && cpu:
			return v[1], true
		case strings.Contains(expr, "avg_over_time"):
			return v[2], true
		case strings.Contains(expr, "max_over_time"):
			return v[3], true
		}
		return 0, false
	}
	var out []any
	switch {
	case strings.Contains(expr, "imbench_target_process_") && strings.Contains(expr, "by (component, pid)"):
		for name, pids := range f.pids {
			for _, pid := range pids {
				out = append(out, sample(map[string]string{"component": name, "pid": pid}, 1))
			}
		}
	case strings.Contains(expr, "imbench_target_process_"):
		for name, v := range f.server {
			if strings.Contains(expr, "tree_size") {
				out = append(out, sample(map[string]string{"component": name}, float64(len(f.pids[name]))))
			} else if x, ok := pick(v); ok {
				out = append(out, sample(map[string]string{"component": name}, x))
			}
		}
	case strings.Contains(expr, "imbench_vus"):
		for id, target := range f.otherRuns {
			out = append(out, sample(map[string]string{"run_id": id, "target": target}, 10))
		}
	case strings.Contains(expr, ownCPUSeries), strings.Contains(expr, ownRSSSeries):
		if f.own != nil {
			if v, ok := pick(*f.own); ok {
				out = append(out, sample(map[string]string{}, v))
			}
		}
	case strings.HasPrefix(expr, "max(count_over_time(imbench:component_memory_rss_bytes"):
		// the rule's samples: one every 5 s while Prometheus had samples
		n := 0
		for t := t0; !t.After(t0.Add(2 * time.Minute)); t = t.Add(5 * time.Second) {
			if f.up(t) {
				n++
			}
		}
		out = append(out, sample(map[string]string{}, float64(n)))
	case strings.Contains(expr, "imbench:component_"):
		for name, v := range f.groups {
			if n, ok := f.procs[name]; ok && strings.Contains(expr, "processes") {
				out = append(out, sample(map[string]string{"component": name}, n))
			} else if x, ok := pick(v); ok {
				out = append(out, sample(map[string]string{"component": name}, x))
			}
		}
	}
	return out
}

// fetch reads the fake over the sample window [t0, t0+2m].
func (f *fakeProm) fetch(t *testing.T) *Series {
	t.Helper()
	roles := map[string]string{"imbench-target": "target", "imbench": "generator", "observability": "observability"}
	s, err := Fetch(t.Context(), f.serve(t), "r1", "reference", t0, t0.Add(2*time.Minute), roles)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
