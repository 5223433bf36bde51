package plan

import (
	"bufio"
	"fmt"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
)

// TooLarge refuses a plan that would not fit this machine's memory: by its
// estimate before it is built, or while it is built, before the memory
// runs out.
type TooLarge struct {
	HeapBytes, LimitBytes uint64
	Users                 int
	Convs                 int64
	Estimate              bool // HeapBytes is the plan's estimate, nothing was built
}

func (e TooLarge) Error() string {
	if e.Estimate {
		return fmt.Sprintf("the plan is too large for this machine: %d users and %d conversations need about %s, more than the %s it can spare for them; give it a smaller scale",
			e.Users, e.Convs, gib(e.HeapBytes), gib(e.LimitBytes))
	}
	return fmt.Sprintf("the plan is too large for this machine: building it took more than %s, the most it can spare for it, at %d users and %d conversations so far; give it a smaller scale",
		gib(e.HeapBytes), e.Users, e.Convs)
}

// Bytes a plan takes per conversation and per user, measured (a plan of
// 780,000 conversations held 121 B each, and the heap grows to half as
// much again while it is built).
const bytesPerConv, bytesPerUser = 200, 64

// conversational is a class whose conversations outgrow its users (each
// super user befriends every other user): it says how many it will make.
type conversational interface{ conversations() int64 }

// estimate is what a plan of classes takes, by its users and the
// conversations of those that say how many.
func estimate(classes []Class) (users int, convs int64, bytes uint64) {
	for _, c := range classes {
		users += c.users()
		if cc, ok := c.(conversational); ok {
			convs += cc.conversations()
		} else {
			convs += int64(c.users())
		}
	}
	return users, convs, uint64(convs)*bytesPerConv + uint64(users)*bytesPerUser
}

func gib(b uint64) string { return strconv.FormatFloat(float64(b)/(1<<30), 'f', 1, 64) + " GB" }

// planMemory is the most a plan may take: a quarter of the memory
// available (the run's users, their inboxes and the runtime need the
// rest), under a cgroup's limit where one applies. 0: not known, no limit.
var planMemory = func() uint64 { return availableMemory() / 4 }

// checkEvery is how many builder steps pass between two looks at the heap.
const checkEvery = 1 << 14

// spend notes one step of the build and, every checkEvery, refuses a plan
// whose heap passed its limit (a panic Build recovers as its error).
func (b *builder) spend() {
	b.steps++
	if b.steps%checkEvery != 0 || b.limit == 0 {
		return
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if used := sample[0].Value.Uint64(); used > b.limit {
		panic(TooLarge{HeapBytes: used, LimitBytes: b.limit, Users: b.p.Users, Convs: int64(len(b.p.Convs))})
	}
}

// availableMemory is /proc/meminfo's MemAvailable, or a cgroup v2 memory
// limit's room where that is less; 0 where neither is read.
func availableMemory() uint64 {
	var avail uint64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
				kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				avail = kb << 10
			}
		}
		f.Close()
	}
	max, err1 := os.ReadFile("/sys/fs/cgroup/memory.max")
	cur, err2 := os.ReadFile("/sys/fs/cgroup/memory.current")
	if err1 == nil && err2 == nil {
		m, e1 := strconv.ParseUint(strings.TrimSpace(string(max)), 10, 64) // "max": no limit
		c, e2 := strconv.ParseUint(strings.TrimSpace(string(cur)), 10, 64)
		if e1 == nil && e2 == nil && m > c && (avail == 0 || m-c < avail) {
			avail = m - c
		}
	}
	return avail
}
