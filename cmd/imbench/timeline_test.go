package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/internal/testmachine"
)

// The support desk of docs/examples/support-desk.js, copied outside the
// repository, runs as meant over each protocol: the customers log in 20 s
// in and pull what their agents sent before, they then write back, every
// second sends what the plan had due within one message, and its
// handleSummary writes the run's own figures.
func TestTheSupportDeskRunsAsMeant(t *testing.T) {
	testmachine.Shared(t)
	eachProtocol(t, docsExample(t, "support-desk.js"), func(t *testing.T, s summary.Summary, results string) {
		u, m, d := s.Users, s.Messages, s.Deliveries
		if u.PlannedTimed != 200 || u.TimedLogins != 200 || u.Logins != 40+200+30+1 || d.Lost+d.Late+d.Unchecked != 0 || d.Received != d.Expected || d.ByPull == 0 {
			t.Fatalf("timed %d logins %d expected %d received %d lost %d pulled %d", u.PlannedTimed, u.Logins, d.Expected, d.Received, d.Lost, d.ByPull)
		}
		if len(m.PlannedPerSecond) != len(m.PerSecond) || len(m.PerSecond) < 60 {
			t.Fatalf("per second: sent %v planned %v", m.PerSecond, m.PlannedPerSecond)
		}
		for i := range m.PerSecond {
			if diff := m.PerSecond[i] - m.PlannedPerSecond[i]; diff < -1 || diff > 1 {
				t.Fatalf("second %d sent %d of %d planned:\nsent    %v\nplanned %v", i, m.PerSecond[i], m.PlannedPerSecond[i], m.PerSecond, m.PlannedPerSecond)
			}
		}
		raw, err := os.ReadFile(filepath.Join(results, "support-desk.json"))
		if err != nil {
			t.Fatal(err)
		}
		var desk struct {
			Sent, Planned, Expected, Received, Pulled, Lost int64
			Late                                            int                           `json:"customers_logged_in_late"`
			Busiest                                         struct{ Sent, Planned int64 } `json:"busiest_second"`
			Crossed                                         []string                      `json:"thresholds_crossed"`
		}
		if err := json.Unmarshal(raw, &desk); err != nil {
			t.Fatal(err)
		}
		if desk.Sent != m.Sent || desk.Planned != m.Planned || desk.Expected != d.Expected || desk.Received != d.Received || desk.Pulled != d.ByPull ||
			desk.Late != 200 || desk.Busiest.Sent != m.PeakPerSecond || desk.Busiest.Planned < 45 || len(desk.Crossed) != 0 {
			t.Fatalf("support-desk.json is not the run's figures: %s", raw)
		}
	})
}

// Receivers who log out for a spell while messages flow log in again and
// pull what they missed: nothing is lost, and the summary counts the
// spells.
func TestASpellAwayIsPulledBack(t *testing.T) {
	testmachine.Shared(t)
	file := filepath.Join(t.TempDir(), "away.js")
	src := "import im from 'imbench';\nimport { planKnobs } from 'imbench/env';\nimport { integrity } from 'imbench/scenario';\n" +
		"export const plan = im.workload({ name: 'away', classes: [\n" +
		"  { kind: 'pairs', pairs: 20, allOnline: true, away: [{ at: '2s', for: '3s', share: 0.5 }], rate: 2, duration: '8s' },\n" +
		"], ...planKnobs(__ENV) });\nexport const options = { thresholds: { ...integrity } };\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	eachProtocol(t, file, func(t *testing.T, s summary.Summary, _ string) {
		u, d := s.Users, s.Deliveries
		if u.Logouts != 10 || u.LoginsBack != 10 || u.Disconnects != 0 || d.Received != d.Expected || d.Lost != 0 || d.ByPull+d.ByGapPull == 0 {
			t.Fatalf("logouts %d back %d disconnects %d; expected %d received %d lost %d pulled %d+%d",
				u.Logouts, u.LoginsBack, u.Disconnects, d.Expected, d.Received, d.Lost, d.ByPull, d.ByGapPull)
		}
	})
}

// The school day of docs/examples/school-day.js, copied outside the
// repository, runs as meant over each protocol: the 40 students log in at
// their times over the first minute, half of them go away in the break and
// come back, each lesson opens with its burst in the second the plan has
// it, every second sends what the plan had due within one message, and
// every delivery to both populations arrives.
func TestTheSchoolDayRunsAsMeant(t *testing.T) {
	testmachine.Shared(t)
	eachProtocol(t, docsExample(t, "school-day.js"), func(t *testing.T, s summary.Summary, results string) {
		checkSchoolDay(t, s)
		raw, err := os.ReadFile(filepath.Join(results, "school-day.json"))
		if err != nil {
			t.Fatal(err)
		}
		var day struct {
			LoggedIn int64 `json:"logged_in_over_the_minute"`
			Away     int64 `json:"away_in_the_break"`
			Lessons  []struct {
				Sent int64 `json:"sent"`
			} `json:"lessons"`
			ByPopulation []summary.DeliveriesByPopulation `json:"by_population"`
		}
		if err := json.Unmarshal(raw, &day); err != nil {
			t.Fatal(err)
		}
		if day.LoggedIn != s.Users.TimedLogins || day.Away != s.Users.Logouts || len(day.Lessons) != 2 ||
			day.Lessons[1].Sent != s.Messages.ByClass[1].Sent || len(day.ByPopulation) != 2 || day.ByPopulation[0] != s.Deliveries.ByPopulation[0] {
			t.Fatalf("school-day.json is not the run's figures: %s", raw)
		}
	})
}

func checkSchoolDay(t *testing.T, s summary.Summary) {
	t.Helper()
	u, m, d := s.Users, s.Messages, s.Deliveries
	if u.PlannedTimed != 40 || u.TimedLogins != 40 || u.Logouts != 20 || u.LoginsBack != 20 || u.Logins != 44 {
		t.Fatalf("timed %d of %d, logouts %d, back %d, logins %d", u.TimedLogins, u.PlannedTimed, u.Logouts, u.LoginsBack, u.Logins)
	}
	if d.Undelivered() != 0 || d.Received != d.Expected || d.Duplicates != 0 || d.ByReturnPull == 0 {
		t.Fatalf("expected %d received %d lost %d late %d unchecked %d duplicates %d by return pull %d",
			d.Expected, d.Received, d.Lost, d.Late, d.Unchecked, d.Duplicates, d.ByReturnPull)
	}
	// Both populations are owed and get every delivery; the teachers
	// only in their groups, the students in their groups and chats.
	if p := d.ByPopulation; len(p) != 2 || p[0].Population != "students" || p[1].Population != "teachers" || p[0].Users != 40 || p[1].Users != 4 ||
		p[0].Expected == 0 || p[0].Received != p[0].Expected || p[1].Expected == 0 || p[1].Received != p[1].Expected || p[0].Expected+p[1].Expected != d.Expected {
		t.Fatalf("by population %+v (expected in all %d)", p, d.Expected)
	}
	// Lessons: 4 groups × 11 at the start, then 8 a second for 25 s and 20 s.
	c := m.ByClass
	if len(c) != 3 || c[0].Sent != 44+200 || c[1].Sent != 44+160 || c[0].Unsent+c[1].Unsent+c[2].Unsent != 0 {
		t.Fatalf("by class %+v", c)
	}
	// The chats begin at the first student's login (1.5 s), the lessons at
	// 65 s and 110 s: their first sends so far apart.
	for i, at := range []int64{65_000 - 1_500, 110_000 - 1_500} {
		if gap := c[i].FirstSendMs - c[2].FirstSendMs; gap < at-700 || gap > at+700 {
			t.Fatalf("lesson %d began %d ms after the chats, want %d", i+1, gap, at)
		}
	}
	if len(m.PlannedPerSecond) != len(m.PerSecond) || len(m.PerSecond) < 125 {
		t.Fatalf("per second: sent %v planned %v", m.PerSecond, m.PlannedPerSecond)
	}
	bursts := 0
	for i := range m.PerSecond {
		if diff := m.PerSecond[i] - m.PlannedPerSecond[i]; diff < -1 || diff > 1 {
			t.Fatalf("second %d sent %d of %d planned:\nsent    %v\nplanned %v", i, m.PerSecond[i], m.PlannedPerSecond[i], m.PerSecond, m.PlannedPerSecond)
		}
		if m.PlannedPerSecond[i] >= 44 {
			bursts++
		}
	}
	if bursts != 2 {
		t.Fatalf("%d seconds with a lesson's burst planned, want 2: %v", bursts, m.PlannedPerSecond)
	}
}
