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
