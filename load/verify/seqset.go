package verify

import (
	"math/bits"
	"sort"
)

// seqSet holds positive integers; it costs two words while they are
// contiguous from 1, which is the normal state of both message numbers and
// server seqs. Members above a gap go in a bitmap that starts just above
// the contiguous run (a map only for those far beyond it): a server that
// pushes out of order costs a bit per number, not a map entry.
type seqSet struct {
	upTo  uint64     // 1..upTo are all present
	above *seqWindow // present members greater than upTo+1, nil when none
}

// seqWindow holds the members above upTo: bit i of word j stands for
// base+64j+i; members at or beyond base+64×windowWords go in far.
type seqWindow struct {
	base uint64
	bits []uint64
	n    int // members in bits and far
	far  map[uint64]struct{}
}

const windowWords = 1024 // 65,536 numbers above the contiguous run

func (w *seqWindow) has(x uint64) bool {
	if x < w.base {
		return false
	}
	if i := (x - w.base) / 64; i < windowWords {
		return i < uint64(len(w.bits)) && w.bits[i]&(1<<((x-w.base)%64)) != 0
	}
	_, ok := w.far[x]
	return ok
}

// set adds x (above upTo+1, not yet present).
func (w *seqWindow) set(x uint64) {
	w.n++
	if i := (x - w.base) / 64; i < windowWords {
		for uint64(len(w.bits)) <= i {
			w.bits = append(w.bits, 0)
		}
		w.bits[i] |= 1 << ((x - w.base) % 64)
		return
	}
	if w.far == nil {
		w.far = map[uint64]struct{}{}
	}
	w.far[x] = struct{}{}
}

// take removes x if present and reports whether it was.
func (w *seqWindow) take(x uint64) bool {
	if !w.has(x) {
		return false
	}
	w.n--
	if i := (x - w.base) / 64; i < windowWords {
		w.bits[i] &^= 1 << ((x - w.base) % 64)
	} else {
		delete(w.far, x)
	}
	return true
}

// slide drops the words wholly at or below upTo, moving what of far the
// window then reaches into it.
func (w *seqWindow) slide(upTo uint64) {
	k := 0
	for k < len(w.bits) && w.base+64*uint64(k+1) <= upTo+1 {
		k++
	}
	switch {
	case k == len(w.bits) && w.base != upTo+1: // every word passed: start again just above
		w.bits, w.base = w.bits[:0], upTo+1
	case k == 0 || k == len(w.bits):
		return
	default:
		w.bits = append(w.bits[:0], w.bits[k:]...)
		w.base += 64 * uint64(k)
	}
	for x := range w.far {
		if (x-w.base)/64 < windowWords {
			delete(w.far, x)
			w.n--
			w.set(x)
		}
	}
}

// each calls fn for the window's members ascending until it returns false.
func (w *seqWindow) each(fn func(uint64) bool) bool {
	for i, word := range w.bits {
		for word != 0 {
			b := uint64(bits.TrailingZeros64(word))
			if !fn(w.base + 64*uint64(i) + b) {
				return false
			}
			word &= word - 1
		}
	}
	rest := make([]uint64, 0, len(w.far))
	for x := range w.far {
		rest = append(rest, x)
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i] < rest[j] })
	for _, x := range rest {
		if !fn(x) {
			return false
		}
	}
	return true
}

// add inserts x and reports whether it was new.
func (s *seqSet) add(x uint64) bool {
	if x == 0 || s.has(x) {
		return false
	}
	if x != s.upTo+1 {
		if s.above == nil {
			s.above = &seqWindow{base: s.upTo + 1}
		}
		s.above.set(x)
		return true
	}
	s.upTo++
	if s.above == nil {
		return true
	}
	for s.above.take(s.upTo + 1) {
		s.upTo++
	}
	if s.above.n == 0 {
		s.above = nil
	} else {
		s.above.slide(s.upTo)
	}
	return true
}

// fill adds 1..upTo.
func (s *seqSet) fill(upTo uint64) {
	if upTo <= s.upTo {
		return
	}
	old := s.above
	s.upTo, s.above = upTo, nil
	if old != nil {
		old.each(func(x uint64) bool {
			if x > upTo {
				s.add(x)
			}
			return true
		})
	}
}

func (s *seqSet) has(x uint64) bool {
	if x == 0 {
		return false
	}
	if x <= s.upTo {
		return true
	}
	return s.above != nil && s.above.has(x)
}

func (s *seqSet) len() uint64 {
	if s.above == nil {
		return s.upTo
	}
	return s.upTo + uint64(s.above.n)
}

// missing lists up to limit numbers in (upTo, max] that are absent, ascending.
func (s *seqSet) missing(max uint64, limit int) []uint64 {
	var out []uint64
	for x := s.upTo + 1; x <= max && len(out) < limit; x++ {
		if !s.has(x) {
			out = append(out, x)
		}
	}
	return out
}

// intersect counts the members s and o share.
func (s *seqSet) intersect(o *seqSet) uint64 {
	m := min(s.upTo, o.upTo)
	n := m
	if o.above != nil {
		o.above.each(func(x uint64) bool { // present in o, in s's contiguous run above m
			if x > m && x <= s.upTo {
				n++
			}
			return true
		})
	}
	if s.above != nil {
		s.above.each(func(x uint64) bool {
			if o.has(x) {
				n++
			}
			return true
		})
	}
	return n
}

// each calls fn for every member, ascending, until fn returns false.
func (s *seqSet) each(fn func(uint64) bool) {
	for x := uint64(1); x <= s.upTo; x++ {
		if !fn(x) {
			return
		}
	}
	if s.above != nil {
		s.above.each(fn)
	}
}

// rangeSet holds positive integers as sorted, disjoint, non-adjacent
// ranges: its size is the number of runs, whatever their length (a late
// user's catch-up is one, each gap pull one more).
type rangeSet struct{ r [][2]uint64 }

// add inserts x.
func (s *rangeSet) add(x uint64) {
	n := len(s.r)
	if n > 0 && x == s.r[n-1][1]+1 { // the usual case: pulls ascend
		s.r[n-1][1] = x
		return
	}
	i := sort.Search(n, func(i int) bool { return s.r[i][1]+1 >= x }) // first range ending at or after x-1
	if i < n && s.r[i][0] <= x+1 && x <= s.r[i][1]+1 {
		if x >= s.r[i][0] && x <= s.r[i][1] {
			return
		}
		if x == s.r[i][1]+1 {
			s.r[i][1] = x
			if i+1 < n && s.r[i+1][0] == x+1 { // joins the next
				s.r[i][1] = s.r[i+1][1]
				s.r = append(s.r[:i+1], s.r[i+2:]...)
			}
			return
		}
		s.r[i][0] = x // x+1 == start
		return
	}
	s.r = append(s.r, [2]uint64{})
	copy(s.r[i+1:], s.r[i:])
	s.r[i] = [2]uint64{x, x}
}

func (s *rangeSet) has(x uint64) bool {
	i := sort.Search(len(s.r), func(i int) bool { return s.r[i][1] >= x })
	return i < len(s.r) && s.r[i][0] <= x
}
