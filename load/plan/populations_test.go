package plan

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func withPopulations(w Workload, pops string) Workload {
	if err := json.Unmarshal([]byte(pops), &w.Populations); err != nil {
		panic(err)
	}
	return w
}

// convsOf counts user u's group and one-to-one conversations.
func convsOf(p *Plan, u uint32) (groups, singles int) {
	for c := range p.Convs {
		if slices.Contains(p.Members(uint32(c)), u) {
			if p.Convs[c].Kind == Group {
				groups++
			} else {
				singles++
			}
		}
	}
	return groups, singles
}

// The issue's user in 3 groups and 5 pairs: 6 people in 3 groups of all
// of them, and every pair of them (15, five each).
func TestAUserInThreeGroupsAndFivePairs(t *testing.T) {
	p := build(t, withPopulations(workload(t,
		`{"kind":"groups","groups":3,"from":"friends","members":6,"rate":1,"messages":2}`,
		`{"kind":"pairs","pairs":15,"from":"friends","rate":1,"messages":1}`),
		`{"friends":{"users":6}}`))
	if p.Users != 6 || len(p.Groups) != 3 || len(p.Friends) != 15 {
		t.Fatalf("users %d groups %d friends %d", p.Users, len(p.Groups), len(p.Friends))
	}
	for u := range uint32(6) {
		if g, s := convsOf(p, u); g != 3 || s != 5 {
			t.Fatalf("user %d is in %d groups and %d pairs, want 3 and 5", u, g, s)
		}
		if p.Login[u] != Immediate || p.PopulationOf(u) != 0 {
			t.Fatalf("user %d: login %v population %d", u, p.Login[u], p.PopulationOf(u))
		}
	}
	// Every delivery is owed to the population: the plan's count and the
	// population's agree message by message.
	var recipients, byPop int64
	for m := range p.Schedule() {
		recipients += int64(p.ExpectedRecipients(m))
		p.ExpectedByPopulation(m, func(k int, n int64) { byPop += n })
	}
	if want := int64(3*2*5 + 15*1); recipients != want || byPop != want {
		t.Fatalf("expected deliveries %d, by population %d; want %d", recipients, byPop, want)
	}
}

// A teacher in every class group: groups take one of teachers, then ten
// of the students, and the teacher (the first drawn) owns and writes.
func TestGroupsDrawFromSeveralPopulationsInOrder(t *testing.T) {
	p := build(t, withPopulations(workload(t,
		`{"kind":"groups","groups":4,"from":{"teachers":1,"students":10},"rate":1,"messages":1}`),
		`{"students":{"users":40},"teachers":{"users":1}}`))
	if p.Users != 41 || len(p.Populations) != 2 || p.Populations[0].Name != "students" || p.Populations[1].First != 40 {
		t.Fatalf("users %d populations %+v", p.Users, p.Populations)
	}
	teacher := uint32(40)
	for i, g := range p.Groups {
		if g.Owner != teacher || len(g.Members) != 11 || !slices.IsSorted(g.Members) {
			t.Fatalf("group %d: %+v", i, g)
		}
		if g.Members[0] != uint32(i*10) {
			t.Fatalf("group %d starts at student %d, want %d", i, g.Members[0], i*10)
		}
	}
	for m := range p.Schedule() {
		if m.Sender != teacher {
			t.Fatalf("message from %d, want the teacher", m.Sender)
		}
	}
}

// Two pairs classes of one population never share a conversation.
func TestPairsClassesTakeTheirOwnPairs(t *testing.T) {
	p := build(t, withPopulations(workload(t,
		`{"kind":"pairs","pairs":5,"from":"p","rate":1,"messages":1}`,
		`{"kind":"pairs","pairs":5,"from":"p","rate":1,"messages":1}`),
		`{"p":{"users":5}}`))
	if len(p.Friends) != 10 || len(p.Convs) != 10 {
		t.Fatalf("friends %d convs %d, want 10 each", len(p.Friends), len(p.Convs))
	}
	if _, err := withPopulations(workload(t, `{"kind":"pairs","pairs":11,"from":"p","rate":1,"messages":1}`),
		`{"p":{"users":5}}`).Build(); err == nil || !strings.Contains(err.Error(), "make 10 pairs") {
		t.Fatalf("11 of 10 pairs: %v", err)
	}
}

// Senders who log in late write from their login on, at their rate; an
// offline user writes none of the pairs it is in.
func TestSendersLogInLateAndWriteFromThen(t *testing.T) {
	p := build(t, withPopulations(workload(t,
		`{"kind":"pairs","pairs":9,"from":"p","rate":1,"duration":"3s"}`),
		`{"p":{"users":10,"online":8,"loginAt":"1s","loginAtShare":0.25}}`))
	timed := 0
	for m, due := range p.Schedule() {
		switch p.Login[m.Sender] {
		case Immediate:
		case Timed:
			if due < p.LoginAt[m.Sender] {
				t.Fatalf("user %d writes at %v, before its login at %v", m.Sender, due, p.LoginAt[m.Sender])
			}
			timed++
		default:
			t.Fatalf("user %d writes but never logs in", m.Sender)
		}
	}
	// Users 8 and 9 never log in: the pair (8, 9) is left out, (7, 8)
	// written by 7, (9, 0) by 0; 6 and 7 log in at 1 s and write 2 s each.
	if got := p.Planned(); got != 7*3+2*2 || timed != 4 {
		t.Fatalf("planned %d, %d by the timed senders; want 25 and 4", got, timed)
	}
}

func TestPopulationMistakesAreSaid(t *testing.T) {
	for _, c := range []struct{ pops, class, want string }{
		{`{"p":{"users":4}}`, `{"kind":"pairs","pairs":2,"from":"q","rate":1,"messages":1}`, `population "q" is not the workload's (its populations: p)`},
		{`{"p":{"users":4}}`, `{"kind":"pairs","pairs":2,"from":"p","allOnline":true,"rate":1,"messages":1}`, "takes its users' presence from them"},
		{`{"p":{"users":4}}`, `{"kind":"groups","groups":2,"from":{"p":2},"members":3,"rate":1,"messages":1}`, "members 3 is not the 2 that from draws"},
		{`{"p":{"users":4}}`, `{"kind":"groups","groups":2,"from":{"p":5},"rate":1,"messages":1}`, "takes 5 members from population p, which has 4 users"},
		{`{"p":{"users":4,"onlineShare":0.25}}`, `{"kind":"groups","groups":2,"from":{"p":2},"senders":2,"rate":1,"messages":1}`, "sender u1 of population p is not online"},
		{`{"p":{"users":4,"loginAt":"5s"}}`, `{"kind":"pairs","pairs":2,"from":"p","inFlight":1,"messages":1}`, "a closed class (inFlight) sends from the start"},
		{`{"p":{"users":0}}`, `{"kind":"online","users":2}`, "population p: users must be 1 or more"},
	} {
		_, err := withPopulations(workload(t, c.class), c.pops).Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with %s: %v, want %q", c.class, c.pops, err, c.want)
		}
	}
}

// The populations are in the plan's workload as built, scaled.
func TestPopulationsAreRecordedScaled(t *testing.T) {
	w := withPopulations(workload(t, `{"kind":"groups","groups":2,"from":{"p":3},"rate":1,"messages":1}`), `{"p":{"users":3}}`)
	w.Scale = 2
	p := build(t, w)
	if !strings.Contains(string(p.Workload), `"populations":{"p":{"users":6,"allOnline":true}}`) ||
		!strings.Contains(string(p.Workload), `"from":{"p":3}`) {
		t.Fatalf("workload %s", p.Workload)
	}
}

// A sender away for a spell passes its turns: none of its messages falls
// due while it is away, and its pairs send for the time it is online.
func TestASenderAwayPassesItsTurns(t *testing.T) {
	p := build(t, withPopulations(workload(t,
		`{"kind":"pairs","pairs":6,"from":"p","totalRate":6,"duration":"6s"}`),
		`{"p":{"users":6,"away":[{"at":"2s","for":"2s","share":0.5}]}}`))
	if len(p.Spells) != 1 || len(p.Spells[0].Users) != 3 {
		t.Fatalf("spells %+v", p.Spells)
	}
	away := map[uint32]bool{}
	for _, u := range p.Spells[0].Users {
		away[u] = true
	}
	n, during := 0, 0
	for m, due := range p.Schedule() {
		n++
		if due >= 2*time.Second && due < 4*time.Second {
			during++
			if away[m.Sender] {
				t.Fatalf("user %d writes at %v, in its spell away", m.Sender, due)
			}
		}
	}
	if n != 3*4+3*6 || during != 6 {
		t.Fatalf("%d messages, %d of them in the spell; want 30 and 6", n, during)
	}
	for _, bad := range []struct{ class, pops, want string }{
		{`{"kind":"pairs","pairs":2,"from":"p","rate":1,"messages":3}`, `{"p":{"users":3,"loginAt":"20s"}}`, "give the class a duration (or stopAt), not messages"},
		{`{"kind":"pairs","pairs":2,"from":"p","rate":1,"duration":"10s"}`, `{"p":{"users":3,"loginAt":"20s"}}`, "none of its senders is online while it sends"},
		{`{"kind":"pairs","pairs":2,"from":"p","inFlight":1,"duration":"10s"}`, `{"p":{"users":3,"away":[{"at":"2s","for":"1s"}]}}`, "cannot go away for a spell"},
		{`{"kind":"pairs","pairs":2,"from":"p","burstAt":"5s","messages":2}`, `{"p":{"users":3,"away":[{"at":"2s","for":"5s"}]}}`, "a sender of its burst at 5 s is away then"},
		{`{"kind":"pairs","pairs":2,"from":"p","rate":1,"burst":2,"startAt":"5s","duration":"5s"}`, `{"p":{"users":3,"away":[{"at":"2s","for":"5s"}]}}`, "a sender of its burst at its start (5 s) is away then"},
		{`{"kind":"pairs","pairs":2,"from":"p","startRate":1,"stages":[{"duration":"5s","target":2}]}`, `{"p":{"users":3,"loginAt":"2s"}}`, "a class with stages has senders who log in late"},
		{`{"kind":"groups","groups":2,"members":3,"from":{"p":-1},"rate":1,"messages":1}`, `{"p":{"users":3}}`, "must give 1 member or more, got -1"},
		{`{"kind":"groups","groups":2,"members":3,"from":{},"rate":1,"messages":1}`, `{"p":{"users":3}}`, "names no population"},
	} {
		if _, err := withPopulations(workload(t, bad.class), bad.pops).Build(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s with %s: %v, want %q", bad.class, bad.pops, err, bad.want)
		}
	}
}

// Spells of two senders of one group, and spells that overlap, take a
// lane away once: its messages are its rate × the time it is online.
func TestOverlappingSpellsCountOnce(t *testing.T) {
	p := build(t, withPopulations(workload(t,
		`{"kind":"groups","groups":2,"from":"a","members":3,"senders":2,"rate":1,"duration":"30s"}`),
		`{"a":{"users":6,"away":[{"at":"5s","for":"20s"},{"at":"10s","for":"5s"}]}}`))
	if got := p.Planned(); got != 2*10 {
		t.Fatalf("planned %d, want 20: two groups, each online 10 of 30 s", got)
	}
	for _, due := range p.Schedule() {
		if due >= 5*time.Second && due < 25*time.Second {
			t.Fatalf("a message due at %v, while every sender is away", due)
		}
	}
}

// A lesson's burst with spells later in the class: the burst at its start,
// then each conversation at its rate while online.
func TestABurstAndASpellLater(t *testing.T) {
	p := build(t, withPopulations(workload(t,
		`{"kind":"pairs","pairs":4,"from":"a","rate":1,"duration":"20s","startAt":"30s","burst":5}`),
		`{"a":{"users":4,"away":[{"at":"40s","for":"5s","share":0.5}]}}`))
	at30 := 0
	for _, due := range p.Schedule() {
		if due == 30*time.Second {
			at30++
		}
	}
	if got := p.Planned(); got != 4*5+2*20+2*15 || at30 < 20 || at30 > 21 || p.Streams[0].Window() != 5 {
		t.Fatalf("planned %d (want 90), %d due at 30 s, window %d", got, at30, p.Streams[0].Window())
	}
}

// A lesson's burst of questions: at its start every sender of every
// class group writes once, back to back, then the lesson goes on at its
// rate until it stops.
func TestABurstLeadsAClassAtItsStart(t *testing.T) {
	p := build(t, withPopulations(workload(t,
		`{"kind":"groups","groups":2,"from":{"teachers":1,"students":3},"senders":4,"burst":4,"totalRate":2,"startAt":"5s","stopAt":"15s"}`),
		`{"students":{"users":6},"teachers":{"users":2}}`))
	s := p.Streams[0]
	if s.Total() != 2*4+20 || s.Window() != 1 {
		t.Fatalf("total %d window %d, want 28 and 1 (one question each)", s.Total(), s.Window())
	}
	at5 := 0
	for _, due := range p.Schedule() {
		if due < 5*time.Second {
			t.Fatalf("a message due at %v, before the class starts", due)
		}
		if due == 5*time.Second {
			at5++
		}
	}
	if at5 != 8+1 || p.DueBefore(5*time.Second+time.Millisecond) != 9 || s.Length() > 15*time.Second {
		t.Fatalf("%d due at 5 s, length %v", at5, s.Length())
	}
	if line := p.Lines()[2]; !strings.Contains(line, "28 messages at 2 msg/s (1 a second each), after 8 messages due together at 5 s (each sender's 1 message back to back), due from 5 s to 14.5 s") {
		t.Fatalf("plan line %q", line)
	}
}

// perSecond is the plan's messages due in each of its first n seconds.
func perSecond(p *Plan, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = p.DueBefore(time.Duration(i+1)*time.Second) - p.DueBefore(time.Duration(i)*time.Second)
	}
	return out
}

// A class at a rate per conversation for a time sends in each while its
// writer is online: two of four log in at 4 s, so the class sends 2 a
// second before and 4 after, and their pairs plan 6 messages, not 10;
// half away from 6 s to 8 s take their pairs' messages with them.
func TestARateFollowsItsWritersOnline(t *testing.T) {
	p := build(t, withPopulations(workload(t, `{"kind":"pairs","pairs":4,"from":"p","rate":1,"duration":"10s"}`),
		`{"p":{"users":4,"loginAt":"4s","loginAtShare":0.5}}`))
	if got, want := perSecond(p, 10), []int64{2, 2, 2, 2, 4, 4, 4, 4, 4, 4}; !slices.Equal(got, want) || p.Planned() != 32 {
		t.Fatalf("per second %v (planned %d), want %v (32)", got, p.Planned(), want)
	}
	if lines := p.Lines(); lines[0] != "population p: 4 users, 2 online from the start, 2 logging in at 4 s" ||
		!strings.Contains(lines[1], "32 messages at up to 4 msg/s (1 a second each while its sender is online)") {
		t.Fatalf("plan lines %q", lines)
	}
	p = build(t, withPopulations(workload(t, `{"kind":"pairs","pairs":4,"from":"p","rate":1,"duration":"10s"}`),
		`{"p":{"users":4,"away":[{"at":"6s","for":"2s","share":0.5}]}}`))
	if line := p.Lines()[0]; line != "population p: 4 users, 4 online from the start; 2 away from 6 s to 8 s" {
		t.Fatalf("plan line %q", line)
	}
	if got, want := perSecond(p, 10), []int64{4, 4, 4, 4, 4, 4, 2, 2, 4, 4}; !slices.Equal(got, want) || p.Planned() != 36 {
		t.Fatalf("per second %v (planned %d), want %v (36)", got, p.Planned(), want)
	}
	away := map[uint32]bool{p.Spells[0].Users[0]: true, p.Spells[0].Users[1]: true}
	for m, due := range p.Schedule() {
		if due >= 6*time.Second && due < 8*time.Second && away[m.Sender] {
			t.Fatalf("user %d writes at %v, away", m.Sender, due)
		}
	}
}

// Two classes drawing from one population make groups of their own: every
// group's id is its own.
func TestClassesOfOnePopulationHaveGroupsOfTheirOwn(t *testing.T) {
	p := build(t, withPopulations(workload(t,
		`{"kind":"groups","groups":2,"from":{"p":3},"rate":1,"messages":1}`,
		`{"kind":"groups","groups":2,"from":{"p":3},"rate":1,"messages":1}`),
		`{"p":{"users":6}}`))
	seen := map[string]bool{}
	for g := range p.Groups {
		if id := p.GroupID(int32(g)); seen[id] {
			t.Fatalf("group id %s twice", id)
		} else {
			seen[id] = true
		}
	}
	if len(seen) != 4 {
		t.Fatalf("%d groups", len(seen))
	}
}

// The game of the issue, as its user wrote it: 120 players logging in over
// the first 20 s into 12 groups of 10, a burst of 10 messages per group
// when the match starts at 30 s, half of them away from 45 s to 60 s, and
// one-to-one messages at 6 a minute beside it for 75 s.
func TestTheIssuesMatchIsWrittenAsSaid(t *testing.T) {
	p := build(t, withPopulations(workload(t,
		`{"kind":"groups","groups":12,"from":{"players":10},"burstAt":"30s","messages":10}`,
		`{"kind":"pairs","pairs":60,"from":"players","ratePerMinute":6,"duration":"75s"}`),
		`{"players":{"users":120,"loginOver":"20s","away":[{"at":"45s","for":"15s","share":0.5}]}}`))
	if p.Users != 120 || p.Count(Timed) != 120 || len(p.Spells) != 1 || len(p.Spells[0].Users) != 60 {
		t.Fatalf("users %d timed %d spells %+v", p.Users, p.Count(Timed), len(p.Spells))
	}
	at30 := 0
	for m, due := range p.Schedule() {
		if p.Convs[m.Conv].Kind == Group {
			if due != 30*time.Second {
				t.Fatalf("a match message due at %v", due)
			}
			at30++
		}
		if due < p.LoginAt[m.Sender] {
			t.Fatalf("player %d writes at %v, before its login at %v", m.Sender, due, p.LoginAt[m.Sender])
		}
	}
	// 60 pairs at 0.1 a second while their writers are online: 75 s less
	// the login, less 15 s for the 30 pairs whose writer is away.
	var want float64
	away := map[uint32]bool{}
	for _, u := range p.Spells[0].Users {
		away[u] = true
	}
	for _, f := range p.Friends {
		w, on := f[0], 75*time.Second-p.LoginAt[f[0]] // the first 60 pairs are i with i+1: i writes
		if away[w] {
			on -= 15 * time.Second
		}
		want += 0.1 * on.Seconds()
	}
	if at30 != 120 || float64(p.Streams[1].Total()) != math.Round(want) {
		t.Fatalf("%d due at 30 s, chats plan %d, want 120 and %.0f", at30, p.Streams[1].Total(), math.Round(want))
	}
}

// Agents and customers drawn from populations: each agent's customers are
// its own, customers log in at 10 s and write from then, and the same
// customers are in a group besides.
func TestHubsDrawFromPopulations(t *testing.T) {
	p := build(t, withPopulations(workload(t,
		`{"kind":"hubs","hubs":2,"partners":3,"from":{"hubs":"agents","partners":"customers"},"rate":1,"duration":"20s"}`,
		`{"kind":"groups","groups":1,"from":{"agents":1,"customers":6},"rate":1,"messages":2}`),
		`{"agents":{"users":2},"customers":{"users":6,"loginAt":"10s"}}`))
	if p.Users != 8 || len(p.Friends) != 6 || len(p.Groups) != 1 {
		t.Fatalf("users %d friends %d groups %d", p.Users, len(p.Friends), len(p.Groups))
	}
	for u := uint32(2); u < 8; u++ {
		if g, s := convsOf(p, u); g != 1 || s != 1 {
			t.Fatalf("customer %d in %d groups and %d chats, want 1 and 1", u, g, s)
		}
	}
	for m, due := range p.Schedule() {
		if m.Sender >= 2 && due < 10*time.Second {
			t.Fatalf("customer %d writes at %v, before its login", m.Sender, due)
		}
	}
	// 6 agents' directions for 20 s, 6 customers' for 10 s, at 1 a second;
	// the group's 2.
	if got := p.Planned(); got != 6*20+6*10+2 {
		t.Fatalf("planned %d, want 182", got)
	}
	for _, bad := range []struct{ pops, class, want string }{
		{`{"a":{"users":2}}`, `{"kind":"hubs","hubs":2,"partners":2,"from":{"hubs":"a","partners":"a"},"rate":1,"messages":1}`, "are one user or have a conversation already"},
		{`{"a":{"users":2}}`, `{"kind":"hubs","hubs":1,"partners":1,"from":{"hubs":"a"},"rate":1,"messages":1}`, "from: { hubs: population, partners: population }"},
		{`{"a":{"users":2}}`, `{"kind":"hubs","hubs":1,"partners":1,"from":{"hubs":"a","partners":"b"},"rate":1,"messages":1}`, `population "b" is not the workload's`},
	} {
		if _, err := withPopulations(workload(t, bad.class), bad.pops).Build(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.class, err, bad.want)
		}
	}
}
