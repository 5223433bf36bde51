package segment

import "testing"

// Every worker is in exactly one segment, whatever n and total.
func TestSegmentsPartitionWorkers(t *testing.T) {
	for n := 1; n <= 12; n++ {
		for total := n; total <= 40; total++ {
			seen := make([]int, total+1)
			for i := 0; i < n; i++ {
				s, err := Parse(Segment{i, n}.String())
				if err != nil {
					t.Fatal(err)
				}
				lo, hi := s.VUs(total)
				if hi < lo {
					t.Fatalf("%d/%d of %d: empty", i, n, total)
				}
				for v := lo; v <= hi; v++ {
					seen[v]++
				}
			}
			for v := 1; v <= total; v++ {
				if seen[v] != 1 {
					t.Fatalf("n=%d total=%d: worker %d in %d segments", n, total, v, seen[v])
				}
			}
		}
	}
}

func TestParseRefusesWhatIsNoSegment(t *testing.T) {
	for _, bad := range []string{"", "1", "3/3", "-1/2", "a/b", "0/0", "0/2000", "1/2/3"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if s, _ := Parse("1/3"); s.Interval() != "1/3:2/3" {
		t.Errorf("interval %s", s.Interval())
	}
	if Whole.Interval() != "0:1" {
		t.Errorf("whole %s", Whole.Interval())
	}
}
