package plan

import (
	"errors"
	"strings"
	"testing"
)

// A plan too large for the memory this machine can spare is refused while
// it is built, with what it had taken, not after the machine ran out: the
// seed's Test 1 at 200 times its size befriends a thousand super users
// with 20,000 users (20 million conversations).
func TestAPlanTooLargeForTheMachineIsRefused(t *testing.T) {
	saved := planMemory
	t.Cleanup(func() { planMemory = saved })
	planMemory = func() uint64 { return 64 << 20 }

	big := Integration{Name: "t/big", Users: 20_000, SuperUsers: 1_000, LargeGroups: 2, CommonGroups: 2, CommonGroupMembers: 5,
		LoginRatio: 0.5, SingleMessages: 1, GroupMessages: 1, Rate: 100}
	_, err := big.Build()
	var tl TooLarge
	if !errors.As(err, &tl) || tl.HeapBytes <= 64<<20 || !tl.Estimate || !strings.Contains(err.Error(), "too large for this machine") || tl.Convs < 19_000_000 {
		t.Fatalf("a plan of 20 million conversations under 64 MB: %v", err)
	}
	small := big
	small.Users, small.SuperUsers = 200, 10
	if _, err := small.Build(); err != nil {
		t.Fatalf("the seed's own size: %v", err)
	}
}

// What no estimate foresaw is caught as it is built: the heap is looked
// at as the builder goes, and past the limit the build stops.
func TestABuildPastItsLimitStops(t *testing.T) {
	b := newBuilder("t/x", 10)
	b.limit = 1
	defer func() {
		if tl, ok := recover().(TooLarge); !ok || tl.Estimate || tl.HeapBytes <= 1 {
			t.Fatalf("recovered %+v", tl)
		}
	}()
	for range checkEvery {
		b.spend()
	}
	t.Fatal("no refusal")
}
