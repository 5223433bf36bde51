package verify

import "iter"

// senders is a conversation's senders as one receiver saw them. Where
// their numbers lie close together (a group's members usually do) their
// entries sit in one slice, found by index: one memory read where a map
// lookup and the entry it points to take several, for every message a
// member of a busy group gets.
type senders struct {
	base  uint32
	dense []senderIn // sender base+i at i; an empty slot is not listed
	nd    int        // senders in dense
	far   map[uint32]*senderIn
}

// denseSlack is how many slots dense may keep per sender in it (at least
// denseMin in all): beyond, a sender far from the others goes in the map.
const denseSlack, denseMin = 2, 32

func (ss *senders) get(u uint32) *senderIn {
	if i := u - ss.base; i < uint32(len(ss.dense)) && ss.dense[i].listed() {
		return &ss.dense[i]
	}
	return ss.far[u]
}

// add returns sender u's entry, made at its first arrival. It may move the
// other entries in dense: a pointer got before does not outlive an add.
func (ss *senders) add(u uint32) *senderIn {
	if s := ss.get(u); s != nil {
		return s
	}
	if s := ss.placeDense(u); s != nil {
		return s
	}
	if ss.far == nil {
		ss.far = map[uint32]*senderIn{}
	}
	s := &senderIn{pulls: noPulls}
	ss.far[u] = s
	return s
}

func (ss *senders) placeDense(u uint32) *senderIn {
	lo, hi := uint64(u), uint64(u)+1
	if ss.dense != nil {
		lo, hi = min(lo, uint64(ss.base)), max(hi, uint64(ss.base)+uint64(len(ss.dense)))
	}
	span := hi - lo
	if span > uint64(max(denseMin, denseSlack*(ss.nd+1))) {
		return nil
	}
	switch {
	case span <= uint64(len(ss.dense)):
	case uint64(ss.base) == lo && span <= uint64(cap(ss.dense)):
		ss.dense = ss.dense[:span]
	default:
		// Room for as many again, so that senders arriving one by one
		// do not copy the slice at every one.
		room := min(2*span, uint64(max(denseMin, denseSlack*(ss.nd+1))))
		dense := make([]senderIn, span, room)
		if ss.dense != nil {
			copy(dense[uint64(ss.base)-lo:], ss.dense)
		}
		ss.base, ss.dense = uint32(lo), dense
	}
	s := &ss.dense[u-ss.base]
	s.pulls = noPulls
	ss.nd++
	return s
}

// all is every sender with its entry.
func (ss *senders) all() iter.Seq2[uint32, *senderIn] {
	return func(yield func(uint32, *senderIn) bool) {
		for i := range ss.dense {
			if ss.dense[i].listed() && !yield(ss.base+uint32(i), &ss.dense[i]) {
				return
			}
		}
		for u, s := range ss.far {
			if !yield(u, s) {
				return
			}
		}
	}
}
