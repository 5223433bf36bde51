package wildfire

import (
	"slices"
	"testing"
)

// Notified numbers stay ascending and unique whatever order they come in,
// and an answer drops exactly those up to its current.
func TestNoticesKeepOrderAndDropAPrefix(t *testing.T) {
	var n notices
	for _, x := range []int64{5, 6, 9, 7, 6, 3, 9, 12} {
		n.add(x)
	}
	if want := []int64{3, 5, 6, 7, 9, 12}; !slices.Equal(n, want) {
		t.Fatalf("%v, want %v", n, want)
	}
	if !n.has(7) || n.has(8) || n.has(13) {
		t.Fatalf("membership wrong in %v", n)
	}
	n.dropUpTo(7)
	if want := []int64{9, 12}; !slices.Equal(n, want) {
		t.Fatalf("after dropping up to 7: %v, want %v", n, want)
	}
	n.dropUpTo(8) // between two: nothing more goes
	n.dropUpTo(12)
	if len(n) != 0 {
		t.Fatalf("after dropping up to 12: %v", n)
	}
	n.add(20)
	if !slices.Equal(n, []int64{20}) {
		t.Fatalf("%v", n)
	}
}
