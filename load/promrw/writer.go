package promrw

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

	"github.com/klauspost/compress/snappy"

	"github.com/imbench/imbench/internal/latency"
)

// Writer sends series to a Prometheus remote-write endpoint (with
// native histograms). Credentials come from the environment:
// IM_PROMETHEUS_RW_USERNAME and _PASSWORD (basic auth), _BEARER_TOKEN,
// _HEADERS ("Name:value,Name:value") and _INSECURE_SKIP_TLS_VERIFY.
type Writer struct {
	url      string
	client   *http.Client
	header   http.Header
	user     *[2]string // basic auth
	warnf    func(string, ...any)
	last     int64 // timestamp of the last write, ms
	writes   int
	failures int
}

// New returns nil when url is empty: the run writes nowhere.
func New(url string, env map[string]string, warnf func(string, ...any)) *Writer {
	if url == "" {
		return nil
	}
	w := &Writer{url: url, client: &http.Client{Timeout: 5 * time.Second}, header: http.Header{}, warnf: warnf}
	if insecure, _ := strconv.ParseBool(env["IM_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY"]); insecure {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the user asked for it
		w.client.Transport = tr
	}
	if u, ok := env["IM_PROMETHEUS_RW_USERNAME"]; ok {
		w.user = &[2]string{u, env["IM_PROMETHEUS_RW_PASSWORD"]}
	}
	for kv := range strings.SplitSeq(env["IM_PROMETHEUS_RW_HEADERS"], ",") {
		if k, v, ok := strings.Cut(kv, ":"); ok {
			w.header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	if tok := env["IM_PROMETHEUS_RW_BEARER_TOKEN"]; tok != "" {
		w.header.Set("Authorization", "Bearer "+tok)
	}
	return w
}

// Stamp is the timestamp of a write at now: strictly after the previous
// one, since Prometheus refuses a second value at the same millisecond.
func (w *Writer) Stamp(now time.Time) int64 {
	w.last = max(now.UnixMilli(), w.last+1)
	return w.last
}

// Write sends series; a failure is counted and only the first one logged:
// the histograms are cumulative, so the next write that gets through
// carries everything.
func (w *Writer) Write(series []TimeSeries) {
	w.writes++
	if err := w.post(series); err != nil {
		w.failures++
		if w.failures == 1 {
			w.warnf("metrics: remote write to %s failed: %v (further failures are counted, not logged)", w.url, err)
		}
	}
}

// Finish logs how many writes failed, if any did.
func (w *Writer) Finish() {
	if w != nil && w.failures > 0 {
		w.warnf("metrics: %d of %d remote writes to %s failed", w.failures, w.writes, w.url)
	}
}

func (w *Writer) post(series []TimeSeries) error {
	raw := Marshal(series)
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

// Labels are a series' labels, less empty ones, with __name__,
// sorted by name.
func Labels(tags map[string]string, name string) []Label {
	labels := make([]Label, 0, len(tags)+1)
	for k, v := range tags {
		if k != "" && v != "" {
			labels = append(labels, Label{Name: k, Value: v})
		}
	}
	labels = append(labels, Label{Name: "__name__", Value: name})
	slices.SortFunc(labels, func(a, b Label) int { return strings.Compare(a.Name, b.Name) })
	return labels
}

// NativeHistogram is n as client_golang writes one (spans bridge gaps of
// up to two empty buckets; counts as deltas).
func NativeHistogram(n *latency.Native, ts int64) Histogram {
	h := Histogram{Count: n.Count(), Sum: n.Sum(), Schema: latency.NativeSchema,
		ZeroThreshold: latency.NativeZeroThreshold, ZeroCount: n.ZeroCount(), Timestamp: ts}
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
			h.PositiveSpans = append(h.PositiveSpans, BucketSpan{Offset: int32(gap)})
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
