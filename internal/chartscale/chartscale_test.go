package chartscale

import "testing"

func TestNiceCeil(t *testing.T) {
	for v, want := range map[float64]float64{0: 1, 0.3: 0.5, 7: 10, 12: 20, 180: 200, 2100: 5000} {
		if got := NiceCeil(v); got != want {
			t.Errorf("NiceCeil(%g) = %g, want %g", v, got, want)
		}
	}
}

// An axis ends at the first tick above the data, five intervals at most.
func TestTicks(t *testing.T) {
	for v, want := range map[float64][2]float64{201: {50, 200}, 200: {50, 200}, 3200: {1000, 4000}, 22: {5, 25}, 0.7: {0.2, 0.8}, 19500: {5000, 20000}, 800.4: {200, 800}, 100.3: {20, 100}} {
		step, top := Ticks(v)
		if step != want[0] || top != want[1] {
			t.Errorf("Ticks(%g) = %g, %g; want %g, %g", v, step, top, want[0], want[1])
		}
	}
}
