package runner

import (
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/imbench/imbench/internal/latency"
	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.k6.io/k6/metrics"
	"google.golang.org/protobuf/proto"
)

// The buckets must be those k6's output made of the old Trend samples:
// client_golang with NativeHistogramBucketFactor 1.1, fed seconds.
func TestNativeHistogramMatchesK6Output(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ref := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "x", NativeHistogramBucketFactor: 1.1})
	var n latency.Native
	record := func(us int64) {
		n.Record(us)
		ref.Observe(float64(us) / 1000 / 1000) // k6: a Trend sample in ms, then adaptUnit
	}
	for _, us := range []int64{0, 0, 1, 2, 3, 999, 1000, 1001, 500_000, 1_000_000, 1 << 20, 2_000_000, 3_600_000_000} {
		record(us)
	}
	for i := 0; i < 50_000; i++ {
		record(int64(rng.ExpFloat64() * 20_000))
	}
	var m dto.Metric
	if err := ref.Write(&m); err != nil {
		t.Fatal(err)
	}
	want := m.Histogram
	got := nativeHistogram(&n, 42)
	if got.GetCountInt() != want.GetSampleCount() || got.Sum != want.GetSampleSum() || got.Schema != want.GetSchema() ||
		got.ZeroThreshold != want.GetZeroThreshold() || got.GetZeroCountInt() != want.GetZeroCount() || got.Timestamp != 42 {
		t.Fatalf("totals: got count %d sum %v schema %d zero %v/%d, client_golang %d %v %d %v/%d", got.GetCountInt(), got.Sum,
			got.Schema, got.ZeroThreshold, got.GetZeroCountInt(), want.GetSampleCount(), want.GetSampleSum(), want.GetSchema(),
			want.GetZeroThreshold(), want.GetZeroCount())
	}
	if len(got.PositiveSpans) != len(want.PositiveSpan) {
		t.Fatalf("%d spans, client_golang %d", len(got.PositiveSpans), len(want.PositiveSpan))
	}
	for i, s := range want.PositiveSpan {
		if got.PositiveSpans[i].Offset != s.GetOffset() || got.PositiveSpans[i].Length != s.GetLength() {
			t.Fatalf("span %d: %v, client_golang %v", i, got.PositiveSpans[i], s)
		}
	}
	if len(got.PositiveDeltas) != len(want.PositiveDelta) {
		t.Fatalf("%d deltas, client_golang %d", len(got.PositiveDeltas), len(want.PositiveDelta))
	}
	for i, d := range want.PositiveDelta {
		if got.PositiveDeltas[i] != d {
			t.Fatalf("delta %d: %d, client_golang %d", i, got.PositiveDeltas[i], d)
		}
	}
}

func TestRemoteWriterOnlyWhenK6WritesToPrometheus(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  []string
		url  string // "" if no writer
	}{
		{args: []string{"k6", "run", "s.js"}},
		{args: []string{"k6", "run", "-o", "json=out.json", "s.js"}},
		{args: []string{"k6", "run", "-o", "experimental-prometheus-rw", "s.js"}, url: rwDefaultURL},
		{args: []string{"k6", "run", "--out=experimental-prometheus-rw", "s.js"}, url: rwDefaultURL},
		{args: []string{"k6", "run", "--out", "csv=x.csv", "-oexperimental-prometheus-rw=x", "s.js"}, url: rwDefaultURL},
		{args: []string{"k6", "run", "s.js", "--", "-o", "experimental-prometheus-rw"}},
		{args: []string{"k6", "run", "s.js"}, env: []string{"K6_OUT=json,experimental-prometheus-rw"}, url: rwDefaultURL},
		{args: []string{"k6", "run", "s.js"}, env: []string{"K6_PROMETHEUS_RW_SERVER_URL=http://p:9/w"}, url: "http://p:9/w"},
		{args: []string{"k6", "run", "-o", "experimental-prometheus-rw", "s.js"},
			env: []string{"K6_PROMETHEUS_RW_SERVER_URL=http://127.0.0.1:9090/api/v1/write"}, url: "http://127.0.0.1:9090/api/v1/write"},
	} {
		w := newRemoteWriter(c.args, c.env, t.Logf)
		switch {
		case c.url == "" && w != nil:
			t.Errorf("%v %v: writes to %s", c.args, c.env, w.url)
		case c.url != "" && (w == nil || w.url != c.url):
			t.Errorf("%v %v: writer %+v, want url %s", c.args, c.env, w, c.url)
		}
	}
}

// fakePrometheus decodes what it receives; status is its answer.
type fakePrometheus struct {
	*httptest.Server
	mu     sync.Mutex
	status int
	got    []*prompb.WriteRequest
	header []http.Header
}

func newFakePrometheus(t *testing.T) *fakePrometheus {
	f := &fakePrometheus{status: http.StatusNoContent}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		raw, err := snappy.Decode(nil, body)
		var req prompb.WriteRequest
		if err == nil {
			err = proto.Unmarshal(raw, &req)
		}
		if err != nil {
			t.Errorf("undecodable write: %v", err)
		}
		f.mu.Lock()
		f.got = append(f.got, &req)
		f.header = append(f.header, r.Header)
		status := f.status
		f.mu.Unlock()
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "refused\n")
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakePrometheus) requests() []*prompb.WriteRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.got
}

func labelsOf(ts *prompb.TimeSeries) string {
	var b strings.Builder
	for _, l := range ts.Labels {
		b.WriteString(l.Name + "=" + l.Value + " ")
	}
	return strings.TrimSpace(b.String())
}

func TestRemoteWritePayload(t *testing.T) {
	f := newFakePrometheus(t)
	w := newRemoteWriter([]string{"k6"}, []string{"K6_PROMETHEUS_RW_SERVER_URL=" + f.URL, "K6_PROMETHEUS_RW_HEADERS_X-Scope-OrgID=imbench",
		"K6_PROMETHEUS_RW_USERNAME=u", "K6_PROMETHEUS_RW_PASSWORD=p"}, t.Errorf)
	tags := metrics.NewRegistry().RootTagSet().With("run_id", "r1").With("group", "").With("conv_type", "single")
	var n latency.Native
	for _, us := range []int64{0, 1500, 2500, 2_000_000} {
		n.Record(us)
	}
	w.write([]*prompb.TimeSeries{{Labels: promLabels(tags, "imbench_e2e_latency_seconds"),
		Histograms: []*prompb.Histogram{nativeHistogram(&n, w.stamp(time.UnixMilli(1000)))}}})
	reqs := f.requests()
	if len(reqs) != 1 || len(reqs[0].Timeseries) != 1 || w.failures != 0 {
		t.Fatalf("%d requests, %d failures", len(reqs), w.failures)
	}
	ts := reqs[0].Timeseries[0]
	if l := labelsOf(ts); l != "__name__=imbench_e2e_latency_seconds conv_type=single run_id=r1" {
		t.Errorf("labels %s", l)
	}
	h := ts.Histograms[0]
	if h.GetCountInt() != 4 || h.GetZeroCountInt() != 1 || math.Abs(h.Sum-2.004) > 1e-12 || h.Timestamp != 1000 || h.Schema != 3 {
		t.Errorf("histogram %v", h)
	}
	var buckets uint64
	var c int64
	for _, d := range h.PositiveDeltas {
		c += d
		buckets += uint64(c)
	}
	if buckets != 3 {
		t.Errorf("%d values in the positive buckets, want 3", buckets)
	}
	hd := f.header[0]
	if hd.Get("Content-Encoding") != "snappy" || hd.Get("X-Scope-OrgID") != "imbench" || !strings.HasPrefix(hd.Get("Authorization"), "Basic ") {
		t.Errorf("headers %v", hd)
	}
	if w.stamp(time.UnixMilli(1000)) != 1001 {
		t.Error("a second write in the same millisecond must get a later timestamp")
	}
}

func TestRemoteWriteFailuresAreCountedAndLoggedOnce(t *testing.T) {
	f := newFakePrometheus(t)
	f.status = http.StatusBadRequest
	var logged []string
	w := newRemoteWriter([]string{"k6"}, []string{"K6_PROMETHEUS_RW_SERVER_URL=" + f.URL}, func(format string, args ...any) {
		logged = append(logged, format)
	})
	var n latency.Native
	n.Record(1000)
	for i := 0; i < 3; i++ {
		w.write([]*prompb.TimeSeries{{Labels: promLabels(metrics.NewRegistry().RootTagSet(), "k6_x_seconds"),
			Histograms: []*prompb.Histogram{nativeHistogram(&n, w.stamp(time.Now()))}}})
	}
	w.finish()
	if w.failures != 3 || len(logged) != 2 || !strings.Contains(logged[1], "of %d remote writes") {
		t.Errorf("%d failures, logged %q", w.failures, logged)
	}
	down := newRemoteWriter([]string{"k6"}, []string{"K6_PROMETHEUS_RW_SERVER_URL=http://127.0.0.1:1/api/v1/write"}, func(string, ...any) {})
	down.write(nil)
	if down.failures != 1 {
		t.Error("an unreachable endpoint must count as a failure")
	}
}
