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
