// Package segment splits a run's workers over processes: segment i of n
// runs the workers (VUs) whose 1-based ids fall in its share, as k6's
// execution segments did, so that no user is held by two processes and the
// processes' partial summaries merge exactly. A Kubernetes Indexed Job's
// pod passes its JOB_COMPLETION_INDEX as i.
package segment

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Segment is part i (0-based) of n.
type Segment struct{ Index, Count int }

// Whole is the run in one process.
var Whole = Segment{0, 1}

// Parse reads "i/n" (0 ≤ i < n ≤ 1024).
func Parse(s string) (Segment, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || n > 1024 || i < 0 || i >= n {
		return Segment{}, fmt.Errorf("segment %q: want i/n with 0 ≤ i < n ≤ 1024 (a Kubernetes Indexed Job passes $(JOB_COMPLETION_INDEX)/<completions>)", s)
	}
	return Segment{i, n}, nil
}

// String is "i/n", what Parse reads.
func (s Segment) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Split reports whether the run has more than one segment.
func (s Segment) Split() bool { return s.Count > 1 }

// Interval is the segment as k6 wrote execution segments ("1/3:2/3"):
// the name of its partial summary (summary.PartFile) and of the parts a
// merge lists.
func (s Segment) Interval() string {
	if !s.Split() {
		return "0:1"
	}
	return frac(s.Index, s.Count) + ":" + frac(s.Index+1, s.Count)
}

func frac(i, n int) string { return big.NewRat(int64(i), int64(n)).RatString() }

// VUs are the 1-based worker ids [lo, hi] this segment runs of total; empty
// (lo > hi) when total < Count leaves it none. Consecutive segments' ranges
// partition 1..total.
func (s Segment) VUs(total int) (lo, hi int) {
	lo = total*s.Index/s.Count + 1
	hi = total * (s.Index + 1) / s.Count
	return lo, hi
}
