package main

// End-to-end tests: the built binaries (imbench, which runs the scenario
// itself → the reference target), as `make run-scenario` runs them. `make test` builds
// the binaries first and says where they are in IMBENCH_TOOLS.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/testmachine"
	"github.com/imbench/imbench/load/catalog"
)

func TestScenarioDeliversEverythingOnACleanTarget(t *testing.T) {
	testmachine.Shared(t)
	tg := startTarget(t)
	s := runScenario(t, tg, "0.25", "300")
	d := s.Deliveries
	if d.Expected == 0 || d.Expected != d.Received || d.Lost != 0 || s.Integrity != 1 {
		t.Fatalf("expected %d received %d lost %d integrity %v", d.Expected, d.Received, d.Lost, s.Integrity)
	}
	if d.Duplicates+d.OutOfOrder+d.Corrupted+d.ByGapPull != 0 {
		t.Fatalf("clean target: %+v", d)
	}
	if s.Messages.Sent == 0 || s.Messages.Sent != s.Messages.Acked || s.Messages.PeakPerSecond == 0 {
		t.Fatalf("messages %+v", s.Messages)
	}
	// Late users received what they missed by pull, and it counts.
	if s.Users.LateLogins == 0 || d.ByPull == 0 || d.Pushed+d.ByPull != d.Received {
		t.Fatalf("late logins %d, pulled %d", s.Users.LateLogins, d.ByPull)
	}
	e := s.Latency.E2E
	if e.Count != d.Pushed || !(0 < e.P50 && e.P50 <= e.P95 && e.P95 <= e.P99 && e.P99 <= e.Max) {
		t.Fatalf("e2e latency %+v for %d pushed deliveries", e, d.Pushed)
	}
	// The target saw what the generator says it sent.
	// The target counts its notifications among chat messages, as the real
	// server does; it says how many it sent.
	if got := accepted(t, tg); got != s.Messages.Acked {
		t.Fatalf("target accepted %d messages (besides its notifications), generator had %d acknowledged", got, s.Messages.Acked)
	}
}

// Each fault the target injects must come out of the verifier exactly as
// the target counted it.
func TestFaultsAreCountedExactly(t *testing.T) {
	testmachine.Shared(t)
	cases := []struct {
		name  string
		flags []string
		check func(t *testing.T, tg target, s runSummary)
	}{
		{"lose", []string{"-fault-lose", "0.01"}, func(t *testing.T, tg target, s runSummary) {
			want := tg.counter(t, "imbench_target_fault_lost_deliveries_total")
			if want == 0 || s.Deliveries.Lost != want || s.Integrity >= 1 {
				t.Fatalf("target lost %d deliveries, summary says lost %d (integrity %v)", want, s.Deliveries.Lost, s.Integrity)
			}
		}},
		{"skip-push", []string{"-fault-skip-push", "0.01"}, func(t *testing.T, tg target, s runSummary) {
			want := tg.counter(t, "imbench_target_fault_skipped_pushes_total")
			if want == 0 || s.Deliveries.Lost != 0 || s.Deliveries.ByGapPull != want {
				t.Fatalf("target skipped %d pushes; pulled after a gap %d, lost %d", want, s.Deliveries.ByGapPull, s.Deliveries.Lost)
			}
		}},
		{"duplicate", []string{"-fault-duplicate", "0.01"}, func(t *testing.T, tg target, s runSummary) {
			want := tg.counter(t, "imbench_target_fault_duplicated_pushes_total")
			if want == 0 || s.Deliveries.Duplicates != want || s.Deliveries.Lost != 0 {
				t.Fatalf("target duplicated %d pushes, summary says %d", want, s.Deliveries.Duplicates)
			}
		}},
		{"reorder", []string{"-fault-reorder", "0.05"}, func(t *testing.T, tg target, s runSummary) {
			want := tg.counter(t, "imbench_target_fault_reordered_pushes_total")
			if want == 0 || s.Deliveries.OutOfOrder != want || s.Deliveries.Lost != 0 || s.Deliveries.Duplicates != 0 {
				t.Fatalf("target reordered %d pushes, summary says %d out of order (dup %d lost %d)",
					want, s.Deliveries.OutOfOrder, s.Deliveries.Duplicates, s.Deliveries.Lost)
			}
		}},
		{"delay", []string{"-fault-delay", "50ms"}, func(t *testing.T, tg target, s runSummary) {
			if s.Latency.E2E.P50 <= 50 || s.Deliveries.Lost != 0 {
				t.Fatalf("e2e p50 %v ms with a 50 ms push delay", s.Latency.E2E.P50)
			}
		}},
		{"disconnect", []string{"-fault-disconnect-every", "400ms", "-fault-disconnect-count", "3"}, func(t *testing.T, tg target, s runSummary) {
			want := tg.counter(t, "imbench_target_fault_disconnects_total")
			if want == 0 || s.Users.Disconnects != want || s.Users.Reconnects == 0 || s.Deliveries.Lost != 0 {
				t.Fatalf("target dropped %d connections; summary: %d disconnects, %d reconnects, lost %d",
					want, s.Users.Disconnects, s.Users.Reconnects, s.Deliveries.Lost)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testmachine.Shared(t)
			tg := startTarget(t, c.flags...)
			// Lost deliveries cross the scenario's lost threshold on purpose.
			s := runScenario(t, tg, "0.5", "500", "-no-thresholds")
			c.check(t, tg, s)
		})
	}
}

// Every scenario `make scenarios` lists runs verified at a tiny size against
// one reference target: exit 0 (its thresholds held), every expected
// delivery received and none lost.
func TestEveryScenarioRunsVerifiedAtATinySize(t *testing.T) {
	testmachine.Shared(t)
	names, err := func() ([]string, error) {
		wd, _ := os.Getwd()
		defer os.Chdir(wd)
		os.Chdir("../..")
		return catalog.Names()
	}()
	if err != nil || len(names) == 0 {
		t.Fatalf("scenarios: %v %v", names, err)
	}
	tiny := map[string][]string{
		"openim/test1":            {"IM_SCALE=0.05"}, // its groups of 5 need 5 users
		"openim/test3":            {"IM_SCALE=0.002"},
		"openim/test3-zh":         {"IM_SCALE=0.01", "IM_DURATION=5s"},
		"wildfire/c1000k":         {"IM_SCALE=0.0002", "IM_HOLD=3s"},
		"openim/hold":             {"IM_USERS=20", "IM_HOLD=3s"},
		"openim/storm":            {"IM_SCALE=0.1", "IM_DURATION=6s", "IM_STORM_AT=2s"},
		"wukongim/mixed":          {"IM_SCALE=0.01", "IM_DURATION=4s"},
		"wukongim/mixed-wkstress": {"IM_SCALE=0.01", "IM_DURATION=4s"},
		"wukongim/stability":      {"IM_SCALE=0.01", "IM_DURATION=4s"},
		"wukongim/reliability":    {"IM_SCALE=0.01", "IM_DURATION=4s"},
		// A limit search's scenario as one run at its first step's load.
		"openim/online-limit":        {"IM_USERS=20", "IM_HOLD=3s"},
		"wukongim/send-limit":        {"IM_SCALE=0.01", "IM_DURATION=3s"},
		"wukongim/receive-limit":     {"IM_SCALE=0.01", "IM_DURATION=3s"},
		"wildfire/single-send-limit": {"IM_SCALE=0.02", "IM_DURATION=3s"},
		"wildfire/group-limit":       {"IM_SCALE=0.01", "IM_DURATION=3s"},
	}
	shared := startTarget(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			testmachine.Shared(t)
			// A storm drops every connection its target holds: the scenario
			// that asks for one gets a target of its own, or it would drop
			// the scenarios running beside it.
			tg := shared
			if slices.ContainsFunc(tiny[name], func(e string) bool { return strings.HasPrefix(e, "IM_STORM_AT=") }) {
				tg = startTarget(t)
			}
			env := append(tg.env(), "IM_DRAIN_QUIET=1s")
			env = append(env, tiny[name]...)
			if tiny[name] == nil {
				env = append(env, "IM_SCALE=0.01")
			}
			results := t.TempDir()
			r := imbench(t, env, "run", "-scenario", name, "-results", results)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			raw, err := os.ReadFile(filepath.Join(results, "latest", "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			var s runSummary
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatal(err)
			}
			// A send whose acknowledgement a drop cut off (openim/storm) may
			// still be delivered: counted apart, as unexpected, and only then;
			// one answered too late, as of an unanswered send.
			d, m := s.Deliveries, s.Messages
			if d.Lost != 0 || d.Received != d.Expected+d.Unexpected+d.OfUnanswered || (d.Unexpected > 0 && m.SendFailed == 0) ||
				(d.OfUnanswered > 0 && m.Unanswered == 0) || s.Users.OnlinePeak == 0 {
				t.Fatalf("expected %d received %d (unexpected %d, %d sends failed; %d of %d unanswered) lost %d, online peak %d", d.Expected, d.Received,
					d.Unexpected, m.SendFailed, d.OfUnanswered, m.Unanswered, d.Lost, s.Users.OnlinePeak)
			}
			// A chatroom's misses are a rate, not a failure; the clean
			// target drops nothing, so here they are none.
			if r := s.Deliveries.Rooms; r != nil && (r.Expected == 0 || r.Missed != 0 || r.Received != r.Expected) {
				t.Fatalf("chatrooms: %+v", *r)
			}
		})
	}
}
