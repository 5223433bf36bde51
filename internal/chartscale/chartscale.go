// Package chartscale holds what the report's and the limit search's SVG
// charts share: the top of an axis.
package chartscale

import "math"

// NiceCeil rounds a chart's top up to 1, 2 or 5 times a power of ten.
func NiceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}
