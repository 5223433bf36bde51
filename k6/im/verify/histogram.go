package verify

import (
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
