package runner

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/klauspost/compress/snappy"
	"go.k6.io/k6/metrics"
	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/internal/latency"
)

const (
	rwOutput     = "experimental-prometheus-rw"
	rwDefaultURL = "http://localhost:9090/api/v1/write" // k6's default
)

// remoteWriter sends native histograms to the Prometheus remote-write
// endpoint of k6's experimental-prometheus-rw output, configured from the
// same environment (URL, basic auth, bearer token, headers, insecure TLS;
// not client certificates or SigV4).
type remoteWriter struct {
	url      string
	client   *http.Client
	header   http.Header
	user     *[2]string // basic auth
	warnf    func(string, ...any)
	last     int64 // timestamp of the last write, ms
	writes   int
	failures int
}

// newRemoteWriter returns nil unless this k6 process writes to Prometheus:
// k6's command line (-o/--out) or K6_OUT names the output, or
// K6_PROMETHEUS_RW_SERVER_URL is set. An extension cannot ask k6 which
// outputs run, and a plain k6 run must not write anywhere.
func newRemoteWriter(args, environ []string, warnf func(string, ...any)) *remoteWriter {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	url := env["K6_PROMETHEUS_RW_SERVER_URL"]
	if url == "" {
		if !outputRequested(args, env["K6_OUT"]) {
			return nil
		}
		url = rwDefaultURL
	}
	w := &remoteWriter{url: url, client: &http.Client{Timeout: 5 * time.Second}, header: http.Header{}, warnf: warnf}
	if insecure, _ := strconv.ParseBool(env["K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY"]); insecure {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the user asked for it, as of k6
		w.client.Transport = tr
	}
	if u, ok := env["K6_PROMETHEUS_RW_USERNAME"]; ok {
		w.user = &[2]string{u, env["K6_PROMETHEUS_RW_PASSWORD"]}
	}
	for k, v := range env {
		if name, ok := strings.CutPrefix(k, "K6_PROMETHEUS_RW_HEADERS_"); ok {
			w.header.Set(name, v)
		}
	}
	for kv := range strings.SplitSeq(env["K6_PROMETHEUS_RW_HTTP_HEADERS"], ",") {
		if k, v, ok := strings.Cut(kv, ":"); ok {
			w.header.Set(k, v)
		}
	}
	if tok := env["K6_PROMETHEUS_RW_BEARER_TOKEN"]; tok != "" {
		w.header.Set("Authorization", "Bearer "+tok)
	}
	return w
}

// outputRequested says whether k6's command line or K6_OUT (comma-separated)
// names the remote-write output: -o X, -oX, -o=X, --out X, --out=X, where X
// may carry an argument after '='.
func outputRequested(args []string, k6Out string) bool {
	var outs []string
	if k6Out != "" {
		outs = strings.Split(k6Out, ",")
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i = len(args)
		case a == "-o" || a == "--out":
			if i+1 < len(args) {
				i++
				outs = append(outs, args[i])
			}
		case strings.HasPrefix(a, "--out="):
			outs = append(outs, a[len("--out="):])
		case strings.HasPrefix(a, "-o"):
			outs = append(outs, strings.TrimPrefix(a[2:], "="))
		}
	}
	return slices.ContainsFunc(outs, func(o string) bool {
		name, _, _ := strings.Cut(strings.TrimSpace(o), "=")
		return name == rwOutput
	})
}

// stamp is the timestamp of a write at now: strictly after the previous
// one, since Prometheus refuses a second value at the same millisecond.
func (w *remoteWriter) stamp(now time.Time) int64 {
	w.last = max(now.UnixMilli(), w.last+1)
	return w.last
}

// write sends series; a failure is counted and only the first one logged:
// the histograms are cumulative, so the next write that gets through
// carries everything.
func (w *remoteWriter) write(series []*prompb.TimeSeries) {
	w.writes++
	if err := w.post(series); err != nil {
		w.failures++
		if w.failures == 1 {
			w.warnf("latency histograms: remote write to %s failed: %v (further failures are counted, not logged)", w.url, err)
		}
	}
}

// finish logs how many writes failed, if any did.
func (w *remoteWriter) finish() {
	if w != nil && w.failures > 0 {
		w.warnf("latency histograms: %d of %d remote writes to %s failed", w.failures, w.writes, w.url)
	}
}

func (w *remoteWriter) post(series []*prompb.TimeSeries) error {
	raw, err := proto.Marshal(&prompb.WriteRequest{Timeseries: series})
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, w.url, bytes.NewReader(snappy.Encode(nil, raw)))
	if err != nil {
		return err
	}
	req.Header = w.header.Clone()
	if w.user != nil {
		req.SetBasicAuth(w.user[0], w.user[1])
	}
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

// promLabels are the labels k6's output gives a series: its tags, less
// empty ones, and __name__, sorted by name.
func promLabels(tags *metrics.TagSet, name string) []*prompb.Label {
	m := tags.Map()
	labels := make([]*prompb.Label, 0, len(m)+1)
	for k, v := range m {
		if k != "" && v != "" {
			labels = append(labels, &prompb.Label{Name: k, Value: v})
		}
	}
	labels = append(labels, &prompb.Label{Name: "__name__", Value: name})
	slices.SortFunc(labels, func(a, b *prompb.Label) int { return strings.Compare(a.Name, b.Name) })
	return labels
}

// nativeHistogram encodes n as client_golang does (spans bridge gaps of up
// to two empty buckets; counts as deltas), which is what k6's output sent.
func nativeHistogram(n *latency.Native, ts int64) *prompb.Histogram {
	h := &prompb.Histogram{
		Count:         &prompb.Histogram_CountInt{CountInt: n.Count()},
		Sum:           n.Sum(),
		Schema:        latency.NativeSchema,
		ZeroThreshold: latency.NativeZeroThreshold,
		ZeroCount:     &prompb.Histogram_ZeroCountInt{ZeroCountInt: n.ZeroCount()},
		Timestamp:     ts,
	}
	var prev int64
	next := 0
	appendCount := func(c int64) {
		h.PositiveSpans[len(h.PositiveSpans)-1].Length++
		h.PositiveDeltas = append(h.PositiveDeltas, c-prev)
		prev = c
	}
	n.Buckets(func(key int, count uint64) {
		gap := key - next
		if len(h.PositiveSpans) == 0 || gap > 2 {
			h.PositiveSpans = append(h.PositiveSpans, &prompb.BucketSpan{Offset: int32(gap)})
		} else {
			for range gap {
				appendCount(0)
			}
		}
		appendCount(int64(count))
		next = key + 1
	})
	return h
}
