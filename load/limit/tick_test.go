package limit

import "testing"

// A chart's label is a figure a reader takes in: a measured latency above
// the axis reads "5.14 s", never its float's every digit.
func TestChartLabelsAreRounded(t *testing.T) {
	for v, want := range map[float64]string{5136.3829999999995: "5.14 s", 950: "950 ms", 9000: "9 s", 2.5: "2.5 ms", 12345: "12.3 s"} {
		if got := tick(v, "ms"); got != want {
			t.Errorf("tick(%v) = %q, want %q", v, got, want)
		}
	}
}
