package verify

import (
	"testing"
	"time"

	"github.com/imbench/imbench/load/plan"
)

// BenchmarkReceiveFanout verifies group messages the way a generator sees
// them: every message of every sender reaches every other member's inbox.
func BenchmarkReceiveFanout(b *testing.B) {
	const users = 200
	p, err := plan.Integration{Name: "b", Users: users, LargeGroups: 1, LargeGroupMembers: users, LoginRatio: 1,
		GroupMessages: 1, Rate: 10}.Build()
	if err != nil {
		b.Fatal(err)
	}
	var conv uint32
	for i, c := range p.Convs {
		if c.Kind == plan.Group {
			conv = uint32(i)
		}
	}
	ck := Checker{Run: []byte("r1"), Plan: p}
	var tl Tally
	inboxes := make([]*Inbox, users)
	for i := range inboxes {
		inboxes[i] = NewInbox(uint32(i))
	}
	now := time.Now()
	b.ResetTimer()
	var n uint32
	for i := 0; i < b.N; {
		n++
		for s := uint32(0); s < users && i < b.N; s++ {
			text := AppendBody(nil, "r1", s, conv, n, now.UnixMicro(), 64)
			a := Arrival{Conv: conv, Seq: uint64(n-1)*users + uint64(s) + 1, Sender: int64(s), Text: text, CreateMs: now.UnixMicro() / 1000, Parsed: Parse(text)}
			for r := range inboxes { // the sender gets its own copy too, as OpenIM pushes it
				ck.Receive(inboxes[r], a, now, &tl)
				i++
			}
		}
	}
}
