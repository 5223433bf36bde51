package runner

import (
	"context"
	"os"
	"runtime"
	"sync"
	"time"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"go.k6.io/k6/metrics"

	"github.com/imbench/imbench/internal/latency"
	"github.com/imbench/imbench/load/verify"
)

// latencyReporter reports the e2e and ack latencies of every session of one
// run in this process, once a second, from the sessions' histograms: k6
// gauges of the run-cumulative avg, p50, p95, p99 and max (for thresholds
// and the summary), and, when k6 runs its Prometheus remote-write output,
// cumulative native histograms written straight to Prometheus under the
// names k6's output gave the old Trends. It is per process, not per session,
// because k6 keeps only a gauge's last value.
type latencyReporter struct {
	ms   *metricSet
	ctx  context.Context
	out  chan<- metrics.SampleContainer
	rw   *remoteWriter // nil when k6 does not write to Prometheus
	tick time.Duration

	mu     sync.Mutex
	groups []*latencyGroup
	live   int           // sessions joined and not yet left
	stop   chan struct{} // closed when the last session leaves
	done   chan struct{}

	flushMu sync.Mutex // one flush at a time; guards the scratch histograms
	h       [verify.Kinds]*latency.Histogram
	all     *latency.Histogram
	n       [verify.Kinds]latency.Native

	gmu        sync.Mutex
	goroutines goroutineSeries
}

// goroutineSeries is the process's goroutine count every goroutineEvery: a
// long run's generator must hold it flat (make soak fits it).
type goroutineSeries struct {
	start time.Time
	last  time.Time
	n     []int32
}

const goroutineEvery = 5 * time.Second

func (g *goroutineSeries) sample(now time.Time) {
	if !g.last.IsZero() && now.Sub(g.last) < goroutineEvery {
		return
	}
	if g.start.IsZero() {
		g.start = now
	}
	g.last = now
	g.n = append(g.n, int32(runtime.NumGoroutine()))
}

// latencyGroup is the sessions whose samples carry the same tags.
type latencyGroup struct {
	base    *metrics.TagSet
	kind    [verify.Kinds]*metrics.TagSet
	tallies []*verify.Tally
	labels  [2][verify.Kinds][]*prompb.Label // e2e, ack; remote write only
}

func newLatencyReporter(ctx context.Context, ms *metricSet, out chan<- metrics.SampleContainer, rw *remoteWriter) *latencyReporter {
	r := &latencyReporter{ms: ms, ctx: ctx, out: out, rw: rw, tick: time.Second, all: latency.NewHistogram()}
	for k := range r.h {
		r.h[k] = latency.NewHistogram()
	}
	return r
}

// joinLatency adds a session to its run's reporter in this process. The
// reporter outlives its sessions, so that the cumulative figures stay whole
// if sessions come and go.
func joinLatency(mi *ModuleInstance, run *Run, t *verify.Tally, base *metrics.TagSet, kind [verify.Kinds]*metrics.TagSet) *latencyReporter {
	run.mu.Lock()
	r := run.latency
	if r == nil {
		st := mi.vu.State()
		warnf := st.Logger.WithField("run_id", run.ID).Warnf
		r = newLatencyReporter(mi.vu.Context(), mi.metrics, st.Samples, newRemoteWriter(os.Args, os.Environ(), warnf))
		run.latency = r
	}
	run.mu.Unlock()
	r.join(t, base, kind)
	return r
}

func (r *latencyReporter) join(t *verify.Tally, base *metrics.TagSet, kind [verify.Kinds]*metrics.TagSet) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var g *latencyGroup
	for _, x := range r.groups {
		if x.base == base { // k6 interns tag sets: equal tags, same pointer
			g = x
		}
	}
	if g == nil {
		g = &latencyGroup{base: base, kind: kind}
		if r.rw != nil {
			for k := range kind {
				g.labels[0][k] = promLabels(kind[k], "k6_"+r.ms.e2e.name+"_seconds")
				g.labels[1][k] = promLabels(kind[k], "k6_"+r.ms.ack.name+"_seconds")
			}
		}
		r.groups = append(r.groups, g)
	}
	g.tallies = append(g.tallies, t)
	r.live++
	if r.live == 1 {
		r.stop, r.done = make(chan struct{}), make(chan struct{})
		go r.loop(r.stop, r.done)
	}
}

// leave ends a session's part; the last one to leave flushes a final time.
func (r *latencyReporter) leave() {
	r.mu.Lock()
	r.live--
	var stop, done chan struct{}
	if r.live == 0 {
		stop, done = r.stop, r.done
	}
	r.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

func (r *latencyReporter) loop(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(r.tick)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			r.flush(false)
		case <-stop:
			r.flush(true)
			return
		}
	}
}

// flush reports the figures so far; the final one also tells how many
// remote writes failed.
func (r *latencyReporter) flush(final bool) {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	r.mu.Lock()
	groups := make([]latencyGroup, len(r.groups))
	for i, g := range r.groups {
		groups[i] = *g
	}
	r.mu.Unlock()

	now := time.Now()
	var samples metrics.Samples
	var series []*prompb.TimeSeries
	var stamp int64
	if r.rw != nil {
		stamp = r.rw.stamp(now)
	}
	for _, g := range groups {
		for m, gauges := range []*latencyGauges{&r.ms.e2e, &r.ms.ack} {
			r.all.Reset()
			for k := 0; k < verify.Kinds; k++ {
				h, n := r.h[k], &r.n[k]
				h.Reset()
				n.Reset()
				for _, t := range g.tallies {
					l := &t.E2E[k]
					if m == 1 {
						l = &t.Ack[k]
					}
					l.MergeInto(h)
					if r.rw != nil {
						l.MergeNativeInto(n)
					}
				}
				samples = gauges.add(samples, g.kind[k], h, now)
				r.all.Merge(h)
				if r.rw != nil && n.Count() > 0 {
					series = append(series, &prompb.TimeSeries{Labels: g.labels[m][k],
						Histograms: []*prompb.Histogram{nativeHistogram(n, stamp)}})
				}
			}
			// Both kinds together, without conv_type, and last: a threshold
			// on the metric itself (im_e2e_latency_p99: ['value<3000'])
			// reads the last value k6 ingested, and k6 ingests a container
			// in order under one lock.
			samples = gauges.add(samples, g.base, r.all, now)
		}
	}
	r.gmu.Lock()
	r.goroutines.sample(now)
	r.gmu.Unlock()
	samples = append(samples, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: r.ms.goroutines, Tags: r.base(groups)},
		Time: now, Value: float64(runtime.NumGoroutine())})
	metrics.PushIfNotDone(r.ctx, r.out, samples)
	if len(series) > 0 {
		r.rw.write(series)
	}
	if final {
		r.rw.finish()
	}
}

// base is the run's tags without conv_type (those of its first group).
func (r *latencyReporter) base(groups []latencyGroup) *metrics.TagSet {
	if len(groups) == 0 {
		return nil
	}
	return groups[0].base
}

// goroutineSeries returns the samples so far: when the first was taken and
// the counts, one every goroutineEvery.
func (r *latencyReporter) goroutineSeries() (time.Time, []int32) {
	r.gmu.Lock()
	defer r.gmu.Unlock()
	return r.goroutines.start, append([]int32(nil), r.goroutines.n...)
}

// add appends the figures of h, if it holds any.
func (lg *latencyGauges) add(out metrics.Samples, tags *metrics.TagSet, h *latency.Histogram, now time.Time) metrics.Samples {
	if h.Count() == 0 {
		return out
	}
	for _, s := range []struct {
		m *metrics.Metric
		v float64
	}{{lg.avg, h.MeanMs()}, {lg.p50, h.QuantileMs(0.50)}, {lg.p95, h.QuantileMs(0.95)}, {lg.p99, h.QuantileMs(0.99)}, {lg.max, h.MaxMs()}} {
		out = append(out, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: s.m, Tags: tags}, Time: now, Value: s.v})
	}
	return out
}
