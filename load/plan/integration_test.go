package plan

import (
	"math"
	"reflect"
	"testing"
)

// The seed's Test 1 command: -u 200 -su 10 -lgr 0.5 -lg 2 -cg 2 -cgm 5 -sm 5 -gm 5,
// 20 concurrent senders at -msgitv 500.
func seedTest1() Integration {
	return Integration{Name: "openim/test1", Users: 200, SuperUsers: 10, LargeGroups: 2, CommonGroups: 2,
		CommonGroupMembers: 5, LoginRatio: 0.5, SingleMessages: 5, GroupMessages: 5, Senders: 20, IntervalMs: 500}
}

// The seed reports "Total Messages 112,350" at "Peak 40 msg/s". Its count is
// what the users online during sending received from others; the plan must
// reproduce that figure exactly from the same parameters.
func TestIntegrationReproducesSeedTest1Figures(t *testing.T) {
	p, err := seedTest1().Build()
	if err != nil {
		t.Fatal(err)
	}
	if p.Rate != 40 {
		t.Fatalf("rate %v, want 40 msg/s", p.Rate)
	}
	if got := p.Count(Immediate); got != 100 {
		t.Fatalf("immediate logins %d, want 100", got)
	}
	if got := len(p.Groups); got != 2+100*2 {
		t.Fatalf("groups %d, want 202", got)
	}
	onlineReceipts, expected := 0, 0
	for _, m := range messages(p) {
		for _, u := range p.Members(m.Conv) {
			if u != m.Sender && p.Login[u] == Immediate {
				onlineReceipts++
			}
		}
		expected += p.ExpectedRecipients(m)
	}
	if onlineReceipts != 112350 {
		t.Fatalf("deliveries to online users %d, want the seed's 112,350", onlineReceipts)
	}
	// 10 super users with 199 friends, 90 more senders with 10: 2,890 friend
	// links x 5, plus 100 senders x 4 groups x 5.
	if len(messages(p)) != 2890*5+100*4*5 {
		t.Fatalf("messages %d, want 16,450", len(messages(p)))
	}
	if expected <= onlineReceipts {
		t.Fatalf("late logins must add expected deliveries: %d <= %d", expected, onlineReceipts)
	}
}

func TestMessageNumbersArePerSenderPerConversation(t *testing.T) {
	p, err := seedTest1().Build()
	if err != nil {
		t.Fatal(err)
	}
	next := map[[2]uint32]uint32{}
	for _, m := range messages(p) {
		k := [2]uint32{m.Sender, m.Conv}
		if m.N != next[k]+1 {
			t.Fatalf("sender %d conv %d: n=%d after %d", m.Sender, m.Conv, m.N, next[k])
		}
		next[k] = m.N
		found := false
		for _, u := range p.Members(m.Conv) {
			found = found || u == m.Sender
		}
		if !found {
			t.Fatalf("sender %d is not a member of conv %d", m.Sender, m.Conv)
		}
	}
}

func TestBuildIsDeterministicAndScales(t *testing.T) {
	a, _ := seedTest1().Build()
	b, _ := seedTest1().Build()
	if !reflect.DeepEqual(messages(a), messages(b)) || !reflect.DeepEqual(a.Groups, b.Groups) {
		t.Fatal("two builds of the same parameters differ")
	}
	in := seedTest1()
	in.Scale = 0.5
	s, err := in.Build()
	if err != nil {
		t.Fatal(err)
	}
	if s.Users != 100 || s.Count(Immediate) != 50 || s.Rate != 40 {
		t.Fatalf("scale 0.5: users %d immediate %d rate %v", s.Users, s.Count(Immediate), s.Rate)
	}
	if len(messages(s)) >= len(messages(a))/2 {
		t.Fatalf("scale 0.5 should send well under half: %d of %d", len(messages(s)), len(messages(a)))
	}
}

func TestUserRangesPartitionWithoutOverlap(t *testing.T) {
	p, _ := seedTest1().Build()
	for _, vus := range []int{1, 3, 6, 7, 200} {
		covered := 0
		var prevHi uint32
		for vu := 1; vu <= vus; vu++ {
			lo, hi, err := p.UserRange(vu, vus)
			if err != nil {
				t.Fatal(err)
			}
			if lo != prevHi {
				t.Fatalf("vus=%d: VU %d starts at %d, previous ended at %d", vus, vu, lo, prevHi)
			}
			covered += int(hi - lo)
			prevHi = hi
		}
		if covered != p.Users {
			t.Fatalf("vus=%d cover %d users of %d", vus, covered, p.Users)
		}
	}
	if _, _, err := p.UserRange(0, 3); err == nil {
		t.Fatal("VU 0 accepted")
	}
}

func TestInvalidParametersAreRejected(t *testing.T) {
	for name, mut := range map[string]func(*Integration){
		"one user":      func(in *Integration) { in.Users = 1 },
		"login ratio":   func(in *Integration) { in.LoginRatio = 0 },
		"no rate":       func(in *Integration) { in.Senders = 0 },
		"group members": func(in *Integration) { in.CommonGroupMembers = 1 },
		"negative":      func(in *Integration) { in.SingleMessages = -1 },
	} {
		in := seedTest1()
		mut(&in)
		if _, err := in.Build(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// messages expands a plan's schedule, for tests of small plans.
func messages(p *Plan) []Msg {
	var out []Msg
	for m := range p.Schedule() {
		out = append(out, m)
	}
	return out
}

// The seed's Test 2 sample (load/scenarios/openim/test2.js): -u 100 -su 3
// -lgr 0.8 -lg 0 -cg 4 -cgm 5 -sm 100 -gm 100 -msgitv 1500, every online
// user sending. The report: 170,800 sampled messages at a peak of 54/s.
func TestIntegrationReproducesSeedTest2Sample(t *testing.T) {
	p, err := Integration{Name: "openim/test2-sample", Users: 100, SuperUsers: 3, CommonGroups: 4, CommonGroupMembers: 5,
		LoginRatio: 0.8, SingleMessages: 100, GroupMessages: 100, Senders: 80, IntervalMs: 1500}.Build()
	if err != nil {
		t.Fatal(err)
	}
	onlineReceipts := 0
	for _, m := range messages(p) {
		for _, u := range p.Members(m.Conv) {
			if u != m.Sender && p.Login[u] == Immediate {
				onlineReceipts++
			}
		}
	}
	if onlineReceipts != 170800 || len(messages(p)) != 84800 || math.Round(p.Rate) != 53 {
		t.Fatalf("deliveries to online users %d (want 170,800), messages %d, rate %v", onlineReceipts, len(messages(p)), p.Rate)
	}
}
