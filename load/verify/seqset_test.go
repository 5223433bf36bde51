package verify

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// seqSet against a plain map, over arrivals in order, shuffled within a
// window, and with jumps far beyond the bitmap.
func TestSeqSetAgreesWithAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for round := range 200 {
		var s seqSet
		ref := map[uint64]bool{}
		n := uint64(1 + r.IntN(3000))
		xs := make([]uint64, 0, n)
		for x := uint64(1); x <= n; x++ {
			xs = append(xs, x)
		}
		if round%4 == 1 { // a far jump or two
			xs = append(xs, n+uint64(windowWords*64+r.IntN(5000)), n+uint64(3*windowWords*64))
		}
		spread := 1 + r.IntN(500)
		for i := range xs { // shuffled within spread
			j := min(len(xs)-1, i+r.IntN(spread))
			xs[i], xs[j] = xs[j], xs[i]
		}
		keep := len(xs) - r.IntN(len(xs)/4+1) // some never arrive
		for _, x := range xs[:keep] {
			if got, want := s.add(x), !ref[x]; got != want {
				t.Fatalf("round %d: add(%d) = %v, want %v", round, x, got, want)
			}
			ref[x] = true
			if s.add(x) {
				t.Fatalf("round %d: %d added twice", round, x)
			}
		}
		max := slices.Max(xs)
		if s.len() != uint64(len(ref)) {
			t.Fatalf("round %d: len %d, want %d", round, s.len(), len(ref))
		}
		var members []uint64
		s.each(func(x uint64) bool { members = append(members, x); return true })
		if len(members) != len(ref) || !slices.IsSorted(members) {
			t.Fatalf("round %d: each gave %d members (sorted %v), want %d", round, len(members), slices.IsSorted(members), len(ref))
		}
		var missing []uint64
		for x := uint64(1); x <= max; x++ {
			if s.has(x) != ref[x] {
				t.Fatalf("round %d: has(%d) = %v", round, x, s.has(x))
			}
			if !ref[x] && x > s.upTo && len(missing) < 50 {
				missing = append(missing, x)
			}
		}
		if got := s.missing(max, 50); !slices.Equal(got, missing) {
			t.Fatalf("round %d: missing %v, want %v", round, got, missing)
		}
	}
}

// fill adds the run from 1, whether or not members above it were there.
func TestSeqSetFill(t *testing.T) {
	var s seqSet
	s.fill(5)
	if s.upTo != 5 || s.len() != 5 || s.above != nil {
		t.Fatalf("empty filled to 5: upTo %d, %d members", s.upTo, s.len())
	}
	s.add(9)
	s.add(12)
	s.fill(10)
	if s.upTo != 10 || s.len() != 11 || !s.has(12) || s.has(11) {
		t.Fatalf("filled to 10 with 9 and 12 above 5: upTo %d, %d members, has 12 %v, has 11 %v", s.upTo, s.len(), s.has(12), s.has(11))
	}
	s.fill(3)
	if s.upTo != 10 || s.len() != 11 {
		t.Fatalf("filled below its run: upTo %d, %d members", s.upTo, s.len())
	}
	s.add(14)
	s.add(200_000) // beyond the window
	s.fill(13)
	if s.upTo != 14 || s.len() != 15 || !s.has(200_000) || s.has(15) {
		t.Fatalf("filled to 13 with 12, 14 and 200000 above 10: upTo %d, %d members", s.upTo, s.len())
	}
}
