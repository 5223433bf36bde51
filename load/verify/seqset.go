package verify

import "sort"

// seqSet holds positive integers; it costs one word while they are contiguous
// from 1, which is the normal state of both message numbers and server seqs.
type seqSet struct {
	upTo  uint64              // 1..upTo are all present
	above map[uint64]struct{} // present members greater than upTo+1
}

// add inserts x and reports whether it was new.
func (s *seqSet) add(x uint64) bool {
	if x == 0 || s.has(x) {
		return false
	}
	if x != s.upTo+1 {
		if s.above == nil {
			s.above = map[uint64]struct{}{}
		}
		s.above[x] = struct{}{}
		return true
	}
	s.upTo++
	for len(s.above) > 0 {
		if _, ok := s.above[s.upTo+1]; !ok {
			break
		}
		delete(s.above, s.upTo+1)
		s.upTo++
	}
	if len(s.above) == 0 {
		s.above = nil
	}
	return true
}

func (s *seqSet) has(x uint64) bool {
	if x == 0 {
		return false
	}
	if x <= s.upTo {
		return true
	}
	_, ok := s.above[x]
	return ok
}

func (s *seqSet) len() uint64 { return s.upTo + uint64(len(s.above)) }

// missing lists up to limit numbers in (upTo, max] that are absent, ascending.
func (s *seqSet) missing(max uint64, limit int) []uint64 {
	var out []uint64
	for x := s.upTo + 1; x <= max && len(out) < limit; x++ {
		if _, ok := s.above[x]; !ok {
			out = append(out, x)
		}
	}
	return out
}

// intersect counts the members s and o share.
func (s *seqSet) intersect(o *seqSet) uint64 {
	m := min(s.upTo, o.upTo)
	n := m
	for x := range o.above { // present in o, in s's contiguous run above m
		if x > m && x <= s.upTo {
			n++
		}
	}
	for x := range s.above {
		if o.has(x) {
			n++
		}
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
	rest := make([]uint64, 0, len(s.above))
	for x := range s.above {
		rest = append(rest, x)
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i] < rest[j] })
	for _, x := range rest {
		if !fn(x) {
			return
		}
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
