package chartscale

import "testing"

func TestNiceCeil(t *testing.T) {
	for v, want := range map[float64]float64{0: 1, 0.3: 0.5, 7: 10, 12: 20, 180: 200, 2100: 5000} {
		if got := NiceCeil(v); got != want {
			t.Errorf("NiceCeil(%g) = %g, want %g", v, got, want)
		}
	}
}
