package runner

import (
	"context"
	"runtime"
	"testing"
	"time"

	"go.k6.io/k6/metrics"

	"github.com/imbench/imbench/internal/latency"
	"github.com/imbench/imbench/load/verify"
)

// A 48 h soak records billions of latencies: recording must keep no sample.
func TestLatencyKeepsNoSamples(t *testing.T) {
	var l verify.Latency
	d, recorded := time.Duration(0), int64(0)
	record := func() {
		recorded++
		d = (d + 7919*time.Microsecond) % (5 * time.Second)
		l.Record(d)
	}
	record() // allocates the histograms, once
	if a := testing.AllocsPerRun(200_000, record); a != 0 {
		t.Errorf("%v allocations per Record", a)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < 2_000_000; i++ {
		record()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 256<<10 {
		t.Errorf("the heap grew by %d bytes over 2e6 values", grew)
	}
	h, n := latency.NewHistogram(), new(latency.Native)
	l.MergeInto(h)
	l.MergeNativeInto(n)
	if h.Count() != recorded || n.Count() != uint64(recorded) {
		t.Errorf("count %d, native %d, recorded %d", h.Count(), n.Count(), recorded)
	}
}

func TestReporterGaugesAndRemoteWrite(t *testing.T) {
	reg := metrics.NewRegistry()
	ms, err := newMetricSet(reg)
	if err != nil {
		t.Fatal(err)
	}
	f := newFakePrometheus(t)
	out := make(chan metrics.SampleContainer, 10)
	r := newLatencyReporter(context.Background(), ms, out,
		newRemoteWriter([]string{"k6", "run", "-o", "experimental-prometheus-rw"}, []string{"K6_PROMETHEUS_RW_SERVER_URL=" + f.URL}, t.Errorf))
	r.tick = time.Hour // flushes only when the test says
	base := reg.RootTagSet().With("run_id", "r1").With("scenario", "openim/test1")
	kind := [verify.Kinds]*metrics.TagSet{base.With("conv_type", "single"), base.With("conv_type", "group"), base.With("conv_type", "room")}

	// Two VUs' sessions with the same tags make one series each.
	var a, b verify.Tally
	r.join(&a, base, kind)
	r.join(&b, reg.RootTagSet().With("run_id", "r1").With("scenario", "openim/test1"), kind)
	for i := 1; i <= 100; i++ {
		a.E2E[0].Record(time.Duration(i) * time.Millisecond) // single: 1..100 ms over two sessions
		b.E2E[0].Record(time.Duration(i+100) * time.Millisecond)
	}
	b.E2E[1].Record(3 * time.Second) // group: one slow delivery
	a.Ack[0].Record(2 * time.Millisecond)
	r.flush(false)

	samples := (<-out).GetSamples()
	value := map[string]float64{}
	var lastP99 float64
	for _, s := range samples {
		ct, _ := s.Tags.Get("conv_type")
		value[s.Metric.Name+"/"+ct] = s.Value
		if s.Metric.Name == "im_e2e_latency_p99" {
			lastP99 = s.Value
		}
	}
	for key, want := range map[string]float64{
		"im_e2e_latency_max/single": 200, "im_e2e_latency_avg/single": 100.5, "im_e2e_latency_p50/single": 100,
		"im_e2e_latency_p99/single": 198, "im_e2e_latency_max/group": 3000, "im_e2e_latency_max/": 3000,
		"im_e2e_latency_p99/": 199, "im_ack_latency_avg/single": 2, "im_ack_latency_p99/": 2,
	} {
		if got, ok := value[key]; !ok || got < want*0.999 || got > want*1.001 {
			t.Errorf("%s = %v (reported: %v), want %v", key, got, ok, want)
		}
	}
	if _, ok := value["im_ack_latency_p99/group"]; ok {
		t.Error("a kind without values must not report 0 ms")
	}
	if lastP99 != value["im_e2e_latency_p99/"] {
		t.Error("the figure over both kinds must come last, for thresholds on the plain metric")
	}

	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d remote writes", len(reqs))
	}
	count := map[string]uint64{}
	for _, ts := range reqs[0].Timeseries {
		count[labelsOf(ts)] = ts.Histograms[0].GetCountInt()
	}
	want := map[string]uint64{
		"__name__=imbench_e2e_latency_seconds conv_type=single run_id=r1 scenario=openim/test1": 200,
		"__name__=imbench_e2e_latency_seconds conv_type=group run_id=r1 scenario=openim/test1":  1,
		"__name__=imbench_ack_latency_seconds conv_type=single run_id=r1 scenario=openim/test1": 1,
	}
	if len(count) != len(want) {
		t.Errorf("series %v, want %v", count, want)
	}
	for k, c := range want {
		if count[k] != c {
			t.Errorf("%s: count %d, want %d", k, count[k], c)
		}
	}

	// Cumulative: the next write carries everything so far.
	b.E2E[1].Record(time.Second)
	r.flush(false)
	<-out
	reqs = f.requests()
	for _, ts := range reqs[1].Timeseries {
		if labelsOf(ts) == "__name__=imbench_e2e_latency_seconds conv_type=group run_id=r1 scenario=openim/test1" {
			if h := ts.Histograms[0]; h.GetCountInt() != 2 || h.Sum != 4 || h.Timestamp <= reqs[0].Timeseries[0].Histograms[0].Timestamp {
				t.Errorf("second write: %v", h)
			}
		}
	}
}

func TestReporterWithoutPrometheusOnlyFeedsK6(t *testing.T) {
	reg := metrics.NewRegistry()
	ms, err := newMetricSet(reg)
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan metrics.SampleContainer, 10)
	r := newLatencyReporter(context.Background(), ms, out, newRemoteWriter([]string{"k6", "run", "s.js"}, nil, t.Errorf))
	base := reg.RootTagSet().With("run_id", "r1")
	var tally verify.Tally
	r.join(&tally, base, [verify.Kinds]*metrics.TagSet{base.With("conv_type", "single"), base.With("conv_type", "group"), base.With("conv_type", "room")})
	tally.Ack[1].Record(5 * time.Millisecond)
	r.leave() // the last session to leave flushes
	if r.rw != nil || len(out) != 1 || len((<-out).GetSamples()) != 11 {
		t.Error("want one flush of 5 group and 5 overall ack gauges and the goroutines, and no remote writer")
	}
	if start, n := r.goroutineSeries(); start.IsZero() || len(n) != 1 || n[0] < 1 {
		t.Errorf("goroutines sampled at %v: %v", start, n)
	}
}
