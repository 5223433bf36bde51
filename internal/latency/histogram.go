// Package latency holds latency distributions: HDR histograms (exact
// count, mean and max; quantiles to 3 significant digits) that merge across
// processes, and the native-histogram buckets Prometheus takes.
package latency

import (
	"math"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram is a latency distribution in microseconds, from 1 µs to 1 hour
// at 3 significant digits (quantiles within 0.1 %). Count, mean and max are
// exact: the mean from an exact sum, the max tracked beside the buckets.
type Histogram struct {
	h   *hdr.Histogram
	sum float64
	max int64
}

const histMaxUs = 3600 * 1000 * 1000

// NewHistogram returns an empty histogram.
func NewHistogram() *Histogram { return &Histogram{h: hdr.New(1, histMaxUs, 3)} }

// Record adds one value in µs; values beyond an hour count as an hour in the
// quantiles but keep their exact value in the mean and the max.
func (h *Histogram) Record(us int64) {
	h.sum += float64(us)
	if us > h.max {
		h.max = us
	}
	_ = h.h.RecordValue(min(max(us, 1), histMaxUs))
}

// Merge adds o into h.
func (h *Histogram) Merge(o *Histogram) {
	h.h.Merge(o.h)
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

// Reset empties h, keeping its memory.
func (h *Histogram) Reset() {
	h.h.Reset()
	h.sum, h.max = 0, 0
}

// Count is the number of values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// MeanMs, QuantileMs and MaxMs report in milliseconds.
func (h *Histogram) MeanMs() float64 {
	if h.Count() == 0 {
		return 0
	}
	return h.sum / float64(h.Count()) / 1000
}

// QuantileMs takes q in 0..1 (hdrhistogram itself takes percents).
func (h *Histogram) QuantileMs(q float64) float64 {
	if h.Count() == 0 {
		return 0
	}
	return float64(min(h.h.ValueAtQuantile(q*100), h.max)) / 1000
}

func (h *Histogram) MaxMs() float64 { return float64(h.max) / 1000 }

// Encoded is a histogram as written into a partial summary, so that the
// summaries of several k6 processes merge into exact global figures.
type Encoded struct {
	HDR   string  `json:"hdr"` // HdrHistogram V2, compressed, base64
	SumUs float64 `json:"sum_us"`
	MaxUs int64   `json:"max_us"`
}

// Encode serialises h.
func (h *Histogram) Encode() (Encoded, error) {
	b, err := h.h.Encode(hdr.V2CompressedEncodingCookieBase)
	return Encoded{HDR: string(b), SumUs: h.sum, MaxUs: h.max}, err
}

// Decode restores an encoded histogram.
func (e Encoded) Decode() (*Histogram, error) {
	h, err := hdr.Decode([]byte(e.HDR))
	if err != nil {
		return nil, err
	}
	return &Histogram{h: h, sum: e.SumUs, max: e.MaxUs}, nil
}

// Native is a latency distribution in Prometheus native-histogram buckets,
// in seconds: the buckets k6's remote-write output made of a Trend sample
// (client_golang, NativeHistogramBucketFactor 1.1, i.e. schema 3 and the
// default zero threshold), with the same count and sum. Bucket i holds
// (2^((i-1)/8), 2^(i/8)] s; a fixed array from 1 µs to 2^24 s (194 days)
// keeps its size independent of the number of values.
type Native struct {
	count, zero uint64
	sum         float64
	buckets     [nativeKeys]uint64
}

const (
	// NativeSchema and NativeZeroThreshold describe every Native.
	NativeSchema        = 3
	NativeZeroThreshold = 2.938735877055719e-39 // client_golang's DefNativeHistogramZeroThreshold, 2^-128

	nativeMinKey = -159 // the bucket of 1 µs
	nativeMaxKey = 192  // 2^24 s; longer values count here
	nativeKeys   = nativeMaxKey - nativeMinKey + 1
)

// nativeBounds are client_golang's schema 3 bounds of a frexp fraction, so
// that a value lands in the bucket client_golang would pick, bit for bit.
var nativeBounds = []float64{
	0.5, 0.5452538663326288, 0.5946035575013605, 0.6484197773255048,
	0.7071067811865475, 0.7711054127039704, 0.8408964152537144, 0.9170040432046711,
}

// Record adds one value in µs.
func (n *Native) Record(us int64) {
	v := float64(us) / 1000 / 1000 // as k6 made it: a sample in ms, adapted to seconds
	n.count++
	n.sum += v
	if v <= NativeZeroThreshold {
		n.zero++
		return
	}
	frac, exp := math.Frexp(v)
	key := sort.SearchFloat64s(nativeBounds, frac) + (exp-1)*len(nativeBounds)
	n.buckets[min(max(key, nativeMinKey), nativeMaxKey)-nativeMinKey]++
}

// Merge adds o into n.
func (n *Native) Merge(o *Native) {
	n.count += o.count
	n.zero += o.zero
	n.sum += o.sum
	for i, c := range o.buckets {
		n.buckets[i] += c
	}
}

// Reset empties n.
func (n *Native) Reset() { *n = Native{} }

// Count, ZeroCount and Sum (seconds) are the histogram's totals.
func (n *Native) Count() uint64     { return n.count }
func (n *Native) ZeroCount() uint64 { return n.zero }
func (n *Native) Sum() float64      { return n.sum }

// Buckets calls f for every non-empty positive bucket, by ascending key.
func (n *Native) Buckets(f func(key int, count uint64)) {
	for i, c := range n.buckets {
		if c > 0 {
			f(i+nativeMinKey, c)
		}
	}
}

// Since returns what n recorded after it was prev (an earlier copy of the
// same series): a window's histogram.
func (n *Native) Since(prev *Native) Native {
	out := *n
	out.count -= prev.count
	out.zero -= prev.zero
	out.sum -= prev.sum
	for i := range out.buckets {
		out.buckets[i] -= prev.buckets[i]
	}
	return out
}

// QuantileSeconds is the upper bound of the bucket holding the q-th value
// (within 9 % of it at schema 3); 0 when n is empty.
func (n *Native) QuantileSeconds(q float64) float64 {
	if n.count == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(n.count)))
	seen := n.zero
	if seen >= rank {
		return 0
	}
	for i, c := range n.buckets {
		if seen += c; seen >= rank {
			return math.Exp2(float64(i+nativeMinKey) / float64(len(nativeBounds)))
		}
	}
	return math.Exp2(float64(nativeMaxKey) / float64(len(nativeBounds)))
}
