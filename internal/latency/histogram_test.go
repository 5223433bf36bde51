package latency

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestHistogramAgreesWithSortedValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	h := NewHistogram()
	var vals []int64
	var sum float64
	for i := 0; i < 20000; i++ {
		v := int64(rng.ExpFloat64() * 3000) // µs, a latency-like tail
		if i%1000 == 0 {
			v = 2_500_000 // a few 2.5 s outliers
		}
		vals = append(vals, v)
		sum += float64(v)
		h.Record(v)
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	exact := func(q float64) float64 { return float64(vals[int(math.Ceil(q*float64(len(vals))))-1]) / 1000 }
	for _, q := range []float64{0.5, 0.95, 0.99} {
		got, want := h.QuantileMs(q), exact(q)
		if math.Abs(got-want) > want*0.002+0.001 {
			t.Errorf("q%.2f = %v ms, sorted values say %v ms", q, got, want)
		}
	}
	if h.MaxMs() != float64(vals[len(vals)-1])/1000 || math.Abs(h.MeanMs()-sum/20000/1000) > 1e-9 {
		t.Fatalf("max %v mean %v", h.MaxMs(), h.MeanMs())
	}
	if !(h.QuantileMs(0.5) <= h.QuantileMs(0.95) && h.QuantileMs(0.95) <= h.QuantileMs(0.99) && h.QuantileMs(0.99) <= h.MaxMs()) {
		t.Fatal("quantiles out of order")
	}
}

// A window's quantiles come from the buckets recorded since the earlier copy.
func TestNativeWindowQuantiles(t *testing.T) {
	var n Native
	for range 100 {
		n.Record(100_000) // 100 ms
	}
	prev := n
	for range 90 {
		n.Record(1000) // 1 ms
	}
	for range 10 {
		n.Record(50_000) // 50 ms
	}
	w := n.Since(&prev)
	if w.Count() != 100 {
		t.Fatalf("window count %d", w.Count())
	}
	if p50 := w.QuantileSeconds(0.5); p50 < 0.001 || p50 > 0.00109 {
		t.Errorf("p50 %v, want the 1 ms bucket's bound", p50)
	}
	if p99 := w.QuantileSeconds(0.99); p99 < 0.05 || p99 > 0.0546 {
		t.Errorf("p99 %v, want the 50 ms bucket's bound", p99)
	}
	var empty Native
	if empty.QuantileSeconds(0.5) != 0 {
		t.Error("an empty window has a quantile")
	}
}
