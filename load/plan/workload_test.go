package plan

import (
	"encoding/json"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

func workload(t *testing.T, classes ...string) Workload {
	t.Helper()
	w := Workload{Name: "test/w", RunID: "r1"}
	for _, c := range classes {
		w.Classes = append(w.Classes, json.RawMessage(c))
	}
	return w
}

func build(t *testing.T, w Workload) *Plan {
	t.Helper()
	p, err := w.Build()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The example: 50 groups of 40 with 5 online each at 30/min, 200
// pairs with offline receivers.
func TestGroupsAndPairsStateWhoIsOnlineAndHowFast(t *testing.T) {
	p := build(t, workload(t,
		`{"kind":"groups","groups":50,"members":40,"online":5,"ratePerMinute":30,"messages":4}`,
		`{"kind":"pairs","pairs":200,"rate":0.5,"messages":3}`))
	if p.Users != 50*40+400 || len(p.Groups) != 50 || len(p.Friends) != 200 {
		t.Fatalf("users %d groups %d friends %d", p.Users, len(p.Groups), len(p.Friends))
	}
	// Per group: the sender and 5 receivers online, 34 never; pairs: 200
	// senders online, 200 receivers never.
	if on, never := p.Count(Immediate), p.Count(Never); on != 50*6+200 || never != 50*34+200 {
		t.Fatalf("online %d never %d", on, never)
	}
	if want := 50*0.5 + 200*0.5; math.Abs(p.Rate-want) > 1e-9 {
		t.Fatalf("rate %v, want %v", p.Rate, want)
	}
	if got := p.Planned(); got != 50*4+200*3 {
		t.Fatalf("planned %d", got)
	}
	var expected int
	last := time.Duration(-1)
	perConv := map[uint32]int{}
	for m, due := range p.Schedule() {
		if due < last {
			t.Fatalf("schedule goes back in time: %v after %v", due, last)
		}
		last = due
		expected += p.ExpectedRecipients(m)
		perConv[m.Conv]++
	}
	if expected != 50*4*5 {
		t.Fatalf("expected deliveries %d, want %d (only online receivers count)", expected, 50*4*5)
	}
	// 50 groups at 0.5/s take turns, one every 40 ms: the 200th message is
	// due at 7.96 s (each group's 4 two seconds apart).
	if d := p.Duration(); d != 7960*time.Millisecond {
		t.Fatalf("duration %v", d)
	}
}

func TestSendersTakeTurnsAndNumbersArePerSender(t *testing.T) {
	p := build(t, workload(t, `{"kind":"groups","groups":2,"members":5,"senders":2,"allOnline":true,"rate":10,"messages":3}`))
	next := map[[2]uint32]uint32{}
	for m := range p.Schedule() {
		k := [2]uint32{m.Sender, m.Conv}
		if m.N != next[k]+1 {
			t.Fatalf("sender %d conv %d: n %d after %d", m.Sender, m.Conv, m.N, next[k])
		}
		next[k] = m.N
	}
	if len(next) != 4 || next[[2]uint32{0, 0}] != 3 || next[[2]uint32{1, 0}] != 3 {
		t.Fatalf("per sender counts %v", next)
	}
}

func TestWatchersAreOnlineAmongOfflineReceivers(t *testing.T) {
	// Wildfire's single-send shape: senders × receivers, one watcher.
	p := build(t, workload(t, `{"kind":"pairs","senders":4,"receivers":10,"watchers":1,"totalRate":100,"messages":2}`))
	if len(p.Friends) != 40 || p.Login[p.Users-1] != Immediate || p.Count(Never) != 9 {
		t.Fatalf("friends %d, last receiver %v, never %d", len(p.Friends), p.Login[p.Users-1], p.Count(Never))
	}
	expected := 0
	for m := range p.Schedule() {
		expected += p.ExpectedRecipients(m)
	}
	if expected != 4*2 {
		t.Fatalf("the watcher expects %d, want every message to it: 8", expected)
	}
}

func TestClosedPacingWalksEachSendersMessages(t *testing.T) {
	p := build(t, workload(t, `{"kind":"pairs","pairs":3,"inFlight":4,"messages":5}`))
	st := p.Streams[0]
	senders := 0
	for u := range uint32(p.Users) {
		if _, ok := st.Cursor(u); ok {
			senders++
		}
	}
	if st.Open() || p.Planned() != 15 || senders != 3 {
		t.Fatalf("open %v planned %d senders %d", st.Open(), p.Planned(), senders)
	}
	for range p.Schedule() {
		t.Fatal("a closed stream has no schedule")
	}
	c, _ := st.Cursor(1)
	for n := uint32(1); n <= 5; n++ {
		m, ok := c.Next()
		if !ok || m.Sender != 1 || m.N != n {
			t.Fatalf("message %d: %+v %v", n, m, ok)
		}
	}
	if _, ok := c.Next(); ok {
		t.Fatal("cursor went past its messages")
	}
	q := build(t, workload(t, `{"kind":"pairs","pairs":1,"inFlight":1,"duration":"2s"}`))
	if q.Planned() != -1 || q.Duration() != 2*time.Second {
		t.Fatalf("by duration: planned %d duration %v", q.Planned(), q.Duration())
	}
}

func TestRampFollowsItsStages(t *testing.T) {
	// 0 → 10/s over 10 s, then 10/s for 10 s: 50 + 100 messages.
	p := build(t, workload(t, `{"kind":"pairs","pairs":5,"stages":[{"duration":"10s","target":10},{"duration":"10s","target":10}]}`))
	if got := p.Planned(); got != 150 {
		t.Fatalf("planned %d, want 150", got)
	}
	var dues []time.Duration
	for _, due := range p.Schedule() {
		dues = append(dues, due)
	}
	// Message k of the ramp is due at sqrt(2k/a) with a = 1/s²: the 50th
	// at 10 s, the 18th at 6 s.
	if d := dues[18]; d < 5990*time.Millisecond || d > 6010*time.Millisecond {
		t.Fatalf("message 18 due at %v, want 6s", d)
	}
	if d := dues[50]; d < 9990*time.Millisecond || d > 10010*time.Millisecond {
		t.Fatalf("message 50 due at %v, want 10s", d)
	}
	if d := dues[149] - dues[148]; d != 100*time.Millisecond {
		t.Fatalf("steady stage spacing %v", d)
	}
}

func TestRateAndDurationKnobsApplyToEveryOpenClass(t *testing.T) {
	w := workload(t,
		`{"kind":"groups","groups":10,"members":3,"allOnline":true,"rate":1,"messages":5}`,
		`{"kind":"pairs","pairs":30,"rate":1,"messages":5}`)
	w.Rate, w.Duration = 80, "30s"
	p := build(t, w)
	if math.Abs(p.Rate-80) > 1e-9 {
		t.Fatalf("rate %v", p.Rate)
	}
	// 80 msg/s for 30 s, a quarter and three quarters of it.
	if got := p.Planned(); got != 2400 {
		t.Fatalf("planned %d", got)
	}
}

// A workload's duration is every paced class's length: its classes need
// no messages of their own (one with stages keeps them; a hold has none).
func TestWorkloadDurationNeedsNoMessages(t *testing.T) {
	w := workload(t,
		`{"kind":"pairs","pairs":30,"rate":1}`,
		`{"kind":"groups","groups":5,"members":40,"online":20,"ratePerMinute":30}`,
		`{"kind":"online","users":3}`)
	w.Duration = "60s"
	p := build(t, w)
	if got := p.Planned(); got != 30*60+5*30 {
		t.Fatalf("planned %d, want %d", got, 30*60+5*30)
	}
}

func TestWorkloadsAreParsedStrictly(t *testing.T) {
	for name, c := range map[string]struct{ class, want string }{
		"unknown kind":     {`{"kind":"chat"}`, `kind "chat" is unknown`},
		"misspelt":         {`{"kind":"groups","group":3,"members":3,"rate":1,"messages":1}`, `unknown field "group"`},
		"two rates":        {`{"kind":"pairs","pairs":2,"rate":1,"totalRate":3,"messages":1}`, "one of rate"},
		"no length":        {`{"kind":"pairs","pairs":2,"rate":1}`, "messages"},
		"closed with rate": {`{"kind":"pairs","pairs":2,"rate":1,"inFlight":2,"messages":1}`, "closed class"},
		"too many online":  {`{"kind":"groups","groups":1,"members":5,"online":3,"late":2,"rate":1,"messages":1}`, "exceed"},
		"bad duration":     {`{"kind":"pairs","pairs":2,"rate":1,"duration":"soon"}`, "duration"},
	} {
		_, err := workload(t, c.class).Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}

// The plan keeps no message: a day at 40,000 msg/s is as big as a minute.
func TestPlanSizeDoesNotGrowWithMessages(t *testing.T) {
	heap := func(duration string) uint64 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		p := build(t, workload(t, `{"kind":"groups","groups":100,"members":100,"online":1,"ratePerMinute":24000,"duration":"`+duration+`"}`))
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(p)
		return after.TotalAlloc - before.TotalAlloc
	}
	minute, day := heap("1m"), heap("24h")
	if day > minute*2 {
		t.Fatalf("a day's plan allocated %d B, a minute's %d B", day, minute)
	}
	p := build(t, workload(t, `{"kind":"groups","groups":100,"members":100,"online":1,"ratePerMinute":24000,"duration":"24h"}`))
	if p.Planned() != 100*24000*60*24 || math.Abs(p.Rate-40000) > 1e-6 {
		t.Fatalf("planned %d at %v msg/s", p.Planned(), p.Rate)
	}
}

func TestIntegrationIsAClassLikeAnyOther(t *testing.T) {
	in := seedTest1()
	alone, err := in.Build()
	if err != nil {
		t.Fatal(err)
	}
	w, err := in.Workload()
	if err != nil {
		t.Fatal(err)
	}
	w.Classes = append(w.Classes, json.RawMessage(`{"kind":"pairs","pairs":2,"rate":1,"messages":1}`))
	both := build(t, w)
	if both.Users != alone.Users+4 || both.Planned() != alone.Planned()+2 {
		t.Fatalf("users %d planned %d", both.Users, both.Planned())
	}
	var rec Workload
	if err := json.Unmarshal(alone.Workload, &rec); err != nil || len(rec.Classes) != 1 ||
		!strings.Contains(string(rec.Classes[0]), `"kind":"integration"`) {
		t.Fatalf("recorded workload %s (%v)", alone.Workload, err)
	}
}

func TestPlannedForCountsWithoutWalking(t *testing.T) {
	p := build(t, workload(t,
		`{"kind":"groups","groups":3,"members":5,"senders":2,"allOnline":true,"rate":10,"duration":"1.5s"}`,
		`{"kind":"pairs","pairs":4,"inFlight":2,"messages":3}`,
		`{"kind":"integration","users":12,"superUsers":2,"largeGroups":1,"commonGroups":1,"commonGroupMembers":3,"loginRatio":0.5,"singleMessages":2,"groupMessages":3,"rate":50}`))
	for _, r := range [][2]uint32{{0, uint32(p.Users)}, {0, 7}, {7, 20}, {3, 4}} {
		want := map[bool]int64{}
		for m := range p.Schedule() {
			want[true] += b2i(m.Sender >= r[0] && m.Sender < r[1])
		}
		for _, st := range p.Streams {
			if st.Open() {
				continue
			}
			for u := r[0]; u < r[1]; u++ {
				c, ok := st.Cursor(u)
				for ok {
					if _, ok = c.Next(); ok {
						want[true]++
					}
				}
			}
		}
		var got int64
		for _, st := range p.Streams {
			got += st.PlannedFor(r[0], r[1])
		}
		if got != want[true] {
			t.Fatalf("users %v: counted %d, walked %d", r, got, want[true])
		}
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func TestRampsStartingAtZeroAndCountsThatDoNotFit(t *testing.T) {
	p := build(t, workload(t, `{"kind":"pairs","pairs":1,"startRate":0,"stages":[{"duration":"10s","target":0},{"duration":"10s","target":10}]}`))
	for _, due := range p.Schedule() {
		if due < 10*time.Second {
			t.Fatalf("first message due at %v: a stage at rate 0 sends nothing", due)
		}
		break
	}
	_, err := workload(t, `{"kind":"pairs","pairs":1,"rate":100000,"duration":"24h"}`).Build()
	if err == nil || !strings.Contains(err.Error(), "too many") {
		t.Fatalf("8.64e9 messages in one pair: %v", err)
	}
}

// Wildfire's group test (seed 004): 50 senders write to 100 groups of 100
// (49 receivers of their own, never online, and one watching phone in
// all), 20 rounds, as fast as acknowledged: 100,000 messages, 10,000,000
// dispatches counting every member, and the watcher expects every message.
func TestSharedSendersAndWatchersSpanEveryGroup(t *testing.T) {
	p := build(t, workload(t, `{"kind":"groups","groups":100,"members":100,"senders":50,"shared":true,"watchers":1,"inFlight":1,"messages":20}`))
	if p.Users != 50+1+100*49 || p.Planned() != 100000 {
		t.Fatalf("users %d planned %d", p.Users, p.Planned())
	}
	var members int
	for _, g := range p.Groups {
		members += len(g.Members)
		if g.Members[0] != 0 || g.Members[50] != 50 || len(g.Members) != 100 {
			t.Fatalf("group %s: %v", g.Key, g.Members[:3])
		}
	}
	if dispatches := int64(members) / int64(len(p.Groups)) * p.Planned(); dispatches != 10_000_000 {
		t.Fatalf("dispatches %d", dispatches)
	}
	// Expected at online users: the other 49 senders and the watcher.
	c, _ := p.Streams[0].Cursor(0)
	m, _ := c.Next()
	if got := p.ExpectedRecipients(m); got != 50 {
		t.Fatalf("recipients of one message %d, want 49 senders and the watcher", got)
	}
	if p.Count(Immediate) != 51 || p.Count(Never) != 4900 {
		t.Fatalf("online %d never %d", p.Count(Immediate), p.Count(Never))
	}
}

// OpenIM's test 2: users online beside the measured ones, sending nothing.
func TestOnlineUsersHoldButSendNothing(t *testing.T) {
	p := build(t, workload(t,
		`{"kind":"pairs","pairs":3,"allOnline":true,"rate":1,"messages":2}`,
		`{"kind":"online","users":40}`))
	if p.Users != 46 || p.Count(Immediate) != 46 || p.Planned() != 6 || p.Rate != 3 {
		t.Fatalf("users %d online %d planned %d rate %v", p.Users, p.Count(Immediate), p.Planned(), p.Rate)
	}
	if p.Duration() != build(t, workload(t, `{"kind":"pairs","pairs":3,"allOnline":true,"rate":1,"messages":2}`)).Duration() {
		t.Fatal("users who send nothing changed how long the test sends")
	}
	if _, err := workload(t, `{"kind":"online","users":0}`).Build(); err == nil {
		t.Fatal("an online class of no users was accepted")
	}
}

// OpenIM's test 3 (Chinese report): ten groups drawn from one population.
func TestSameMembersInEveryGroup(t *testing.T) {
	p := build(t, workload(t,
		`{"kind":"groups","groups":10,"members":50,"sameMembers":true,"senders":4,"online":6,"late":2,"ratePerMinute":60,"messages":3}`))
	if p.Users != 50 || len(p.Groups) != 10 {
		t.Fatalf("users %d groups %d", p.Users, len(p.Groups))
	}
	if p.Count(Immediate) != 10 || p.Count(Late) != 2 || p.Count(Never) != 38 {
		t.Fatalf("online %d late %d never %d", p.Count(Immediate), p.Count(Late), p.Count(Never))
	}
	for c := range p.Convs {
		if got := p.Members(uint32(c)); len(got) != 50 || got[0] != 0 || got[49] != 49 {
			t.Fatalf("group %d members %v", c, got)
		}
	}
	var expected int
	for m := range p.Schedule() {
		expected += p.ExpectedRecipients(m)
	}
	// 10 groups × 4 senders × 3 messages, each to the 9 other online and 2 late members.
	if p.Planned() != 120 || expected != 120*11 {
		t.Fatalf("planned %d expected %d", p.Planned(), expected)
	}
	// Bursts: a second's messages of the groups fall due together, from
	// different senders: no sender writes ten groups' messages back to back.
	burst := build(t, workload(t,
		`{"kind":"groups","groups":10,"members":50,"sameMembers":true,"senders":4,"online":6,"ratePerMinute":60,"pace":"burst","messages":3}`))
	first := map[time.Duration]map[uint32]int{}
	for m, at := range burst.Schedule() {
		if first[at] == nil {
			first[at] = map[uint32]int{}
		}
		first[at][m.Sender]++
	}
	for at, by := range first {
		for sender, n := range by {
			if n > 3 { // 10 groups over 4 senders: 3 at most each
				t.Fatalf("at %s sender %d writes %d messages at once: %v", at, sender, n, by)
			}
		}
	}
	if _, err := workload(t, `{"kind":"groups","groups":2,"members":5,"sameMembers":true,"shared":true,"ratePerMinute":1,"messages":1}`).Build(); err == nil {
		t.Fatal("shared and sameMembers together were accepted")
	}
}

// A step asking 27 msg/s of conversations that each send less than one
// message a second plans 27 msg/s: the class's total is rounded once and
// its remainder spread over its conversations, not dropped from each. The
// issue's workload planned 425 of 540 when each conversation rounded down.
func TestARateBelowOneAConversationIsPlannedWhole(t *testing.T) {
	w := workload(t,
		`{"kind":"groups","groups":30,"members":40,"online":10,"rate":0.2}`,
		`{"kind":"pairs","pairs":200,"rate":0.05}`,
		`{"kind":"groups","groups":1,"members":500,"senders":10,"online":100,"rate":1}`)
	w.Rate, w.Duration = 27, "20s"
	p := build(t, w)
	if got := p.Planned(); got < 540-1 || got > 540+1 { // each class rounds its own total once
		t.Fatalf("planned %d of the 540 asked", got)
	}
	perSecond := map[time.Duration]int{}
	perConv := map[uint32]int{}
	for m, due := range p.Schedule() {
		perSecond[due.Truncate(time.Second)]++
		perConv[m.Conv]++
	}
	for s := range 20 {
		if n := perSecond[time.Duration(s)*time.Second]; n < 26 || n > 28 {
			t.Fatalf("second %d plans %d messages, want 27: %v", s, n, perSecond)
		}
	}
	// The pairs' 0.05 × 27/… each: none carries more than one over another.
	least, most := math.MaxInt, 0
	for c, n := range perConv {
		if p.Convs[c].Class == 1 {
			least, most = min(least, n), max(most, n)
		}
	}
	if most-least > 1 {
		t.Fatalf("pairs carry %d..%d messages each: the remainder is not spread", least, most)
	}
}

// What each class will send is said before any load, its total the rate
// × the time rounded once: 20 pairs at 6 a minute for 75 s send 150, not
// 7 each (140) as when each pair rounded its own.
func TestThePlanSaysWhatEachClassSends(t *testing.T) {
	w := workload(t,
		`{"kind":"pairs","pairs":20,"allOnline":true,"ratePerMinute":6,"duration":"75s"}`,
		`{"kind":"groups","groups":2,"members":3,"allOnline":true,"inFlight":4,"duration":"10s"}`)
	p := build(t, w)
	got := p.Lines()
	want := []string{
		"class 1, pairs: 20 conversations, 150 messages at 2 msg/s (0.1 a second each), due from 0 s to 74.5 s",
		"class 2, groups: 2 conversations, each sender 4 in flight, as fast as answered for 10s",
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("classes\n%q\nwant\n%q", got, want)
	}
}

// A class on the timeline: a match's groups send from 30 s to 45 s at
// 4 msg/s beside pairs sending from the start (half a slot apart from
// them); its messages fall due in its window alone, and the plan says so.
func TestAClassStartsAndStopsOnTheTimeline(t *testing.T) {
	w := workload(t,
		`{"kind":"pairs","pairs":4,"allOnline":true,"rate":0.5,"duration":"60s"}`,
		`{"kind":"groups","groups":2,"members":5,"allOnline":true,"totalRate":4,"startAt":"30s","stopAt":"45s"}`)
	p := build(t, w)
	var first, last time.Duration = -1, 0
	n := 0
	for m, due := range p.Streams[1].Messages() {
		_ = m
		if first < 0 {
			first = due
		}
		last = due
		n++
	}
	if n != 60 || first < 30*time.Second || first >= 30*time.Second+250*time.Millisecond || last >= 45*time.Second || last < 44*time.Second {
		t.Fatalf("the match sends %d messages from %v to %v, want 60 from 30s to before 45s", n, first, last)
	}
	if got := p.Lines()[1]; got != "class 2, groups: 2 conversations, 60 messages at 4 msg/s (2 a second each), due from 30.125 s to 44.875 s" {
		t.Fatalf("%s", got)
	}
	if p.Streams[1].Start() != 30*time.Second || p.FirstDue() != 0 {
		t.Fatalf("start %v, the plan's first due %v", p.Streams[1].Start(), p.FirstDue())
	}
	for class, want := range map[string]string{
		`{"kind":"pairs","pairs":2,"rate":1,"startAt":"20s","stopAt":"10s"}`:     "stopAt 10s is not after startAt 20s",
		`{"kind":"pairs","pairs":2,"rate":1,"stopAt":"10s","duration":"5s"}`:     "stopAt sets the length",
		`{"kind":"pairs","pairs":2,"inFlight":1,"startAt":"5s","duration":"5s"}`: "a closed class (inFlight) sends from the start",
		`{"kind":"pairs","pairs":2,"rate":1,"startAt":"soon","duration":"5s"}`:   `startAt "soon" is not a duration`,
	} {
		if _, err := workload(t, class).Build(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", class, err, want)
		}
	}
}

// Logins spread over a window: ten receivers online over the first 20 s
// log in every 2 s, the last at 20 s; from a loginAt, over the window after it.
func TestLoginsSpreadOverAWindow(t *testing.T) {
	for _, c := range []struct {
		presence string
		first    time.Duration
	}{{`"loginOver":"20s"`, 2 * time.Second}, {`"loginAt":"10s","loginOver":"20s"`, 12 * time.Second}} {
		p := build(t, workload(t, `{"kind":"groups","groups":1,"members":11,"online":10,`+c.presence+`,"rate":1,"duration":"30s"}`))
		var ats []time.Duration
		for u := range p.Users {
			if p.Login[u] == Timed {
				ats = append(ats, p.LoginAt[u])
			}
		}
		if len(ats) != 10 || ats[0] != c.first || ats[9] != c.first+18*time.Second || ats[1]-ats[0] != 2*time.Second {
			t.Fatalf("%s: timed logins at %v", c.presence, ats)
		}
	}
	if _, err := workload(t, `{"kind":"groups","groups":1,"members":3,"online":2,"loginOver":"-1s","rate":1,"duration":"5s"}`).Build(); err == nil ||
		!strings.Contains(err.Error(), `loginOver "-1s" is not a positive duration`) {
		t.Fatalf("%v", err)
	}
}

// A burst at an instant: every message of the class falls due at burstAt,
// each sender's written back to back (its window all of them), and a rate
// limit per client sees them all in one window.
func TestABurstAtAnInstantIsPlanned(t *testing.T) {
	w := workload(t, `{"kind":"groups","groups":4,"members":5,"allOnline":true,"burstAt":"30s","messages":10}`)
	w.Duration = "60s" // the workload's length leaves a burst's instant alone
	p := build(t, w)
	s := p.Streams[0]
	n := 0
	for _, due := range s.Messages() {
		if due != 30*time.Second {
			t.Fatalf("a message due at %v", due)
		}
		n++
	}
	if n != 40 || s.Window() != 10 || p.BusiestSenderIn(time.Second) != 10 {
		t.Fatalf("%d messages, window %d, busiest sender %g in a second", n, s.Window(), p.BusiestSenderIn(time.Second))
	}
	if got := p.Lines()[0]; got != "class 1, groups: 4 conversations, 40 messages all due at 30 s, each sender's 10 messages back to back" {
		t.Fatalf("%s", got)
	}
	for class, want := range map[string]string{
		`{"kind":"groups","groups":1,"members":3,"burstAt":"5s","messages":2,"rate":1}`:      "no rate, stages, inFlight or pace with it",
		`{"kind":"groups","groups":1,"members":3,"burstAt":"5s"}`:                            "burstAt takes messages",
		`{"kind":"groups","groups":1,"members":3,"burstAt":"5s","messages":2,"stopAt":"9s"}`: "no duration, startAt or stopAt with it",
		`{"kind":"groups","groups":1,"members":3,"burstAt":"later","messages":2}`:            `burstAt "later" is not a duration`,
	} {
		if _, err := workload(t, class).Build(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", class, err, want)
		}
	}
}
