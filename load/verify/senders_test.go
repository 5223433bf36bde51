package verify

import (
	"maps"
	"testing"
	"unsafe"
)

func TestSendersFindEveryOneWhereverItLies(t *testing.T) {
	var ss senders
	// Close together (both sides of the first), then far away.
	order := []uint32{500, 501, 499, 520, 480, 1 << 30, 510, 0, 502, 503, 490}
	for _, u := range order {
		ss.add(u).maxN = uint64(u) + 1 // the entry's own mark
		if again := ss.add(u); again.maxN != uint64(u)+1 {
			t.Fatalf("sender %d: a second add found another entry", u)
		}
	}
	want := map[uint32]uint64{}
	for _, u := range order {
		want[u] = uint64(u) + 1
		if s := ss.get(u); s == nil || s.maxN != uint64(u)+1 {
			t.Errorf("sender %d: its entry was lost as others arrived", u)
		}
	}
	if ss.get(504) != nil || ss.get(1<<30+1) != nil {
		t.Error("a sender that never arrived has an entry")
	}
	got := map[uint32]uint64{}
	for u, s := range ss.all() {
		got[u] = s.maxN
	}
	if !maps.Equal(got, want) {
		t.Errorf("all lists %v, want %v", got, want)
	}
	if ss.far[1<<30] == nil || ss.far[0] == nil {
		t.Error("senders far from the others should be in the map, not stretch the slice")
	}
	if ss.nd+len(ss.far) != len(order) || ss.nd < 8 || len(ss.dense) > max(denseMin, denseSlack*ss.nd) {
		t.Errorf("dense holds %d senders in %d slots", ss.nd, len(ss.dense))
	}
}

func TestASenderEntryIsFourWords(t *testing.T) {
	// A busy group's member keeps one per other member and reads a cold
	// one at every delivery: what is rare goes behind the pointer.
	if n := unsafe.Sizeof(senderIn{}); n != 32 {
		t.Fatalf("a sender entry takes %d bytes, want 32", n)
	}
}
