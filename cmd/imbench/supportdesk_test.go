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
	src, err := os.ReadFile("../../docs/examples/support-desk.js")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "support-desk.js")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	tg := startTarget(t)
	for _, proto := range []string{"openim", "wukongim", "wildfire"} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel() // a minute of sending each, light: the three at once
			results := t.TempDir()
			r := imbench(t, append(tg.env(), "IM_DRAIN_QUIET=1s"), "run", "-scenario", file, "-protocol", proto, "-results", results)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			s, err := summary.Load(filepath.Join(results, "latest", "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
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
			raw, err := os.ReadFile(filepath.Join(results, "latest", "support-desk.json"))
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
	tg := startTarget(t)
	for _, proto := range []string{"openim", "wukongim", "wildfire"} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			results := t.TempDir()
			r := imbench(t, append(tg.env(), "IM_DRAIN_QUIET=1s"), "run", "-scenario", file, "-protocol", proto, "-results", results)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			s, err := summary.Load(filepath.Join(results, "latest", "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			u, d := s.Users, s.Deliveries
			if u.Logouts != 10 || u.LoginsBack != 10 || u.Disconnects != 0 || d.Received != d.Expected || d.Lost != 0 || d.ByPull+d.ByGapPull == 0 {
				t.Fatalf("logouts %d back %d disconnects %d; expected %d received %d lost %d pulled %d+%d",
					u.Logouts, u.LoginsBack, u.Disconnects, d.Expected, d.Received, d.Lost, d.ByPull, d.ByGapPull)
			}
		})
	}
}
