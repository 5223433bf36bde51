package core_test

import (
	"log/slog"
	"math"
	"testing"

	"github.com/imbench/imbench/targets/reference/core"
)

// FuzzPull asks for any range of a conversation holding five messages, as
// the protocols' pull requests let a client (OpenIM's seq ranges, WuKongIM's
// message sync): no panic; the page holds consecutive seqs within what is
// stored and the range asked, at most num of them, the last ones of the
// range, ending at EndSeq.
func FuzzPull(f *testing.F) {
	c, err := core.New(core.Config{Secret: "s", Log: slog.New(slog.DiscardHandler)}, core.NewMetrics())
	if err != nil {
		f.Fatal(err)
	}
	if err := c.Register([]string{"a", "b"}); err != nil {
		f.Fatal(err)
	}
	k := core.DirectKey("a", "b")
	const stored = 5
	for i := 0; i < stored; i++ {
		if _, err := c.Send(&core.Message{Conv: k, Sender: "a", ClientID: "c", Payload: []byte("x")}); err != nil {
			f.Fatal(err)
		}
	}
	for _, r := range [][3]int64{{1, 5, 5}, {0, 0, 0}, {2, 4, 1}, {10, math.MinInt64 + 5, 1}, {math.MinInt64, math.MaxInt64, math.MaxInt64},
		{-3, 100, 2}, {6, 9, 3}, {math.MaxInt64, math.MinInt64, 1}} {
		f.Add(r[0], r[1], r[2])
	}
	f.Fuzz(func(t *testing.T, begin, end, num int64) {
		p, err := c.Pull("b", k, begin, end, num)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(p.Msgs)) > max(num, 0) {
			t.Fatalf("%d messages for num %d", len(p.Msgs), num)
		}
		for i, m := range p.Msgs {
			if m.Seq < max(begin, 1) || m.Seq > min(end, stored) || (i > 0 && m.Seq != p.Msgs[i-1].Seq+1) {
				t.Fatalf("range %d..%d (num %d): seq %d at %d", begin, end, num, m.Seq, i)
			}
		}
		if n := len(p.Msgs); n > 0 && (p.Msgs[n-1].Seq != p.EndSeq || p.EndSeq != min(end, stored)) {
			t.Fatalf("range %d..%d (num %d): last seq %d, EndSeq %d", begin, end, num, p.Msgs[n-1].Seq, p.EndSeq)
		}
	})
}
