package runner

import (
	"context"
	"sync"
	"time"

	"go.k6.io/k6/metrics"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/verify"
)

// metricSet holds the im_* metrics. Every sample carries run_id, target,
// system and scenario (the plan's name, e.g. openim/test1); message metrics
// also conv_type (single|group|room), deliveries also via (push|pull). Latency
// reaches k6 as gauges of the process's histograms (see latency.go), not as
// one Trend sample per delivery, which k6 would keep for the whole run.
type metricSet struct {
	online                                       *metrics.Metric // gauge: users online in this k6 process
	down                                         *metrics.Metric // gauge: users dropped and not yet back
	sent, acked, sendFailures                    *metrics.Metric
	deliveries, expected, duplicates, outOfOrder *metrics.Metric
	lost, roomMissed, corrupted                  *metrics.Metric
	connectErrors, disconnects, reconnects       *metrics.Metric
	logins, pulls                                *metrics.Metric
	e2e, ack                                     latencyGauges
	goroutines                                   *metrics.Metric // gauge: of the k6 process
}

// latencyGauges are a latency's run-cumulative figures, in ms.
type latencyGauges struct {
	name                    string // the series' name in Prometheus, less k6_ and _seconds
	avg, p50, p95, p99, max *metrics.Metric
}

func newMetricSet(r *metrics.Registry) (*metricSet, error) {
	var err error
	get := func(name string, t metrics.MetricType, vt ...metrics.ValueType) *metrics.Metric {
		m, e := r.NewMetric(name, t, vt...)
		if err == nil {
			err = e
		}
		return m
	}
	gauges := func(name string) latencyGauges {
		g := func(stat string) *metrics.Metric { return get(name+"_"+stat, metrics.Gauge, metrics.Time) }
		return latencyGauges{name: name, avg: g("avg"), p50: g("p50"), p95: g("p95"), p99: g("p99"), max: g("max")}
	}
	ms := &metricSet{
		online:        get("im_online_users", metrics.Gauge),
		down:          get("im_users_down", metrics.Gauge),
		sent:          get("im_messages_sent", metrics.Counter),
		acked:         get("im_messages_acked", metrics.Counter),
		sendFailures:  get("im_send_failures", metrics.Counter),
		deliveries:    get("im_deliveries", metrics.Counter),
		expected:      get("im_deliveries_expected", metrics.Counter),
		duplicates:    get("im_duplicates", metrics.Counter),
		outOfOrder:    get("im_out_of_order", metrics.Counter),
		lost:          get("im_lost", metrics.Counter),
		roomMissed:    get("im_room_missed", metrics.Counter),
		corrupted:     get("im_corrupted", metrics.Counter),
		connectErrors: get("im_connect_errors", metrics.Counter),
		disconnects:   get("im_disconnects", metrics.Counter),
		reconnects:    get("im_reconnects", metrics.Counter),
		logins:        get("im_logins", metrics.Counter),
		pulls:         get("im_pull_requests", metrics.Counter),
		goroutines:    get("im_goroutines", metrics.Gauge),
		e2e:           gauges("im_e2e_latency"),
		ack:           gauges("im_ack_latency"),
	}
	return ms, err
}

// flusher turns one session's tally into k6 samples once a second: counter
// growth since the last flush and the process's online users. Its latencies
// go to the run's latencyReporter, which reports all sessions together.
type flusher struct {
	ms   *metricSet
	ctx  context.Context
	out  chan<- metrics.SampleContainer
	run  *Run
	s    *engine.Session
	base *metrics.TagSet
	kind [verify.Kinds]*metrics.TagSet
	via  [verify.Kinds][2]*metrics.TagSet

	last verify.Totals
	lat  *latencyReporter
	done chan struct{}
	wg   sync.WaitGroup
}

func newFlusher(mi *ModuleInstance, run *Run, s *engine.Session) *flusher {
	st := mi.vu.State()
	f := &flusher{ms: mi.metrics, ctx: mi.vu.Context(), out: st.Samples, run: run, s: s, done: make(chan struct{})}
	f.base = run.tags(st.Tags.GetCurrentValues().Tags)
	for k := 0; k < verify.Kinds; k++ {
		f.kind[k] = f.base.With("conv_type", verify.KindName(k))
		f.via[k][0] = f.kind[k].With("via", "push")
		f.via[k][1] = f.kind[k].With("via", "pull")
	}
	f.lat = joinLatency(mi, run, &s.Tally, f.base, f.kind)
	f.wg.Add(1)
	return f
}

func (f *flusher) loop() {
	defer f.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			f.flush()
		case <-f.done:
			f.flush()
			return
		}
	}
}

func (f *flusher) stop() {
	close(f.done)
	f.wg.Wait()
	f.lat.leave()
}

func (f *flusher) flush() {
	var cur verify.Totals
	cur.Add(&f.s.Tally)
	now := time.Now()
	var out metrics.Samples
	add := func(m *metrics.Metric, tags *metrics.TagSet, v float64) {
		out = append(out, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: tags}, Time: now, Value: v})
	}
	// Every counter is sent on every flush, zero growth included: k6's
	// remote write only sends series that got samples, and a counter that
	// stays 0 must still be a continuous 0 series (a clean run shows 0
	// duplicates, and rate() over it is 0, not "no data").
	delta := func(m *metrics.Metric, tags *metrics.TagSet, now, before int64) {
		add(m, tags, float64(now-before))
	}
	l := &f.last
	for k := 0; k < verify.Kinds; k++ {
		delta(f.ms.sent, f.kind[k], cur.Sent[k], l.Sent[k])
		delta(f.ms.acked, f.kind[k], cur.Acked[k], l.Acked[k])
		delta(f.ms.sendFailures, f.kind[k], cur.SendFailed[k], l.SendFailed[k])
		delta(f.ms.expected, f.kind[k], cur.Expected[k], l.Expected[k])
		delta(f.ms.deliveries, f.via[k][0], cur.Pushed[k], l.Pushed[k])
		delta(f.ms.deliveries, f.via[k][1], cur.Pulled[k], l.Pulled[k])
		delta(f.ms.duplicates, f.kind[k], cur.Duplicates[k], l.Duplicates[k])
		delta(f.ms.outOfOrder, f.kind[k], cur.OutOfOrder[k], l.OutOfOrder[k])
	}
	delta(f.ms.corrupted, f.base, cur.Corrupt, l.Corrupt)
	delta(f.ms.connectErrors, f.base, cur.ConnectErrors, l.ConnectErrors)
	delta(f.ms.disconnects, f.base, cur.Disconnects, l.Disconnects)
	delta(f.ms.reconnects, f.base, cur.Reconnects, l.Reconnects)
	delta(f.ms.logins, f.base.With("phase", "immediate"), cur.LoginsImmediate, l.LoginsImmediate)
	delta(f.ms.logins, f.base.With("phase", "late"), cur.LoginsLate, l.LoginsLate)
	delta(f.ms.pulls, f.base, cur.PullRequests, l.PullRequests)
	add(f.ms.online, f.base, float64(f.run.Shared.Online()))
	add(f.ms.down, f.base, float64(f.run.Shared.Down()))
	f.last = cur
	metrics.PushIfNotDone(f.ctx, f.out, out)
}
