package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/imbench/imbench/internal/stack/console"
	"github.com/imbench/imbench/internal/stack/observe"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/runner"
)

// startConsole copies what the run prints from here on to the log store,
// labelled as the runner labels its own lines; a tee that cannot start
// leaves the terminal as it was.
func (rc *runConfig) startConsole(obs observe.Observation, scenario string) {
	tee, err := console.Start(obs.LogPush, map[string]string{"run_id": rc.runID, "job": "imbench", "target": rc.target.Name, "scenario": scenario})
	if err != nil {
		fmt.Fprintln(os.Stderr, "imbench: the terminal's lines stay out of the log store:", err)
		return
	}
	rc.console = tee
}

// stopConsole gives the terminal back (what is queued goes to the store).
func (rc *runConfig) stopConsole() {
	if rc.console != nil {
		rc.console.Stop()
	}
}

// sayVerdict prints the run's last line, the verdict, and logs it at INFO
// when the run passed, ERROR when not.
func (rc *runConfig) sayVerdict(dir string, code int) {
	level, line := verdict(dir, code)
	if rc.console != nil {
		rc.console.Last(level, line)
		return
	}
	fmt.Println(line)
}

// verdict is the run's outcome in one line, from its exit code and its
// summary: what arrived of what was owed, and why the run failed.
func verdict(dir string, code int) (level, line string) {
	s, err := summary.Load(filepath.Join(dir, "summary.json"))
	got := ""
	if err == nil {
		d := s.Deliveries
		switch {
		case d.Expected > 0:
			got = fmt.Sprintf("%s of %s expected deliveries verified", summary.Grouped(d.Received-d.OfUnanswered-d.Unexpected), summary.Grouped(d.Expected))
			if d.Late > 0 {
				got += fmt.Sprintf(", %s late (stored, not delivered in time)", summary.Grouped(d.Late))
			}
			if d.Unchecked > 0 {
				got += fmt.Sprintf(", %s unchecked (%s)", summary.Grouped(d.Unchecked), summary.UncheckedWhy(d.StoreCheck))
			}
			if d.Lost > 0 {
				got += fmt.Sprintf(", %s lost", summary.Grouped(d.Lost))
			}
			if d.Corrupted > 0 {
				got += fmt.Sprintf(", %s corrupted", summary.Grouped(d.Corrupted))
			}
			// Counts the thresholds may not judge are named all the same.
			for _, c := range []struct {
				n    int64
				what string
			}{{d.Duplicates, "duplicated"}, {d.OutOfOrder, "out of order"}, {d.Unexpected, "delivered of sends that failed"}} {
				if c.n > 0 {
					got += fmt.Sprintf(", %s %s", summary.Grouped(c.n), c.what)
				}
			}
			if r := d.Rooms; r != nil && r.Missed > 0 {
				got += fmt.Sprintf(", %s chatroom deliveries missed", summary.Grouped(r.Missed))
			}
		case s.Users.OnlinePeak > 0:
			got = fmt.Sprintf("%s users online at the peak", summary.Grouped(s.Users.OnlinePeak))
		}
	}
	if err == nil && s.Messages.Unanswered > 0 {
		got += fmt.Sprintf("; %s of %s sends unanswered: the server did not answer within the timeout (overloaded, or gone)",
			summary.Grouped(s.Messages.Unanswered), summary.Grouped(s.Messages.Sent))
	}
	if err == nil {
		if q := summary.QuotaText(s.Generator); q != "" {
			got += "; " + q
		}
		if len(s.Missing) > 0 { // the generator's loss, not the server's
			got += fmt.Sprintf("; segment(s) %s ended early (%s): what was owed their users counts as lost", strings.Join(s.Missing, ", "), summary.MissingUsersText(s))
		}
	}
	why := map[int]string{
		runner.ExitThresholds:    "a threshold was crossed",
		runner.ExitInterrupted:   "interrupted",
		runner.ExitAborted:       "ended early",
		runner.ExitHandleSummary: "the scenario's handleSummary failed (the line above says how); summary.json and the report are written",
	}[code]
	if why == "" && code != 0 {
		why = "the run failed"
	}
	if code == runner.ExitThresholds {
		if crossed := crossedThresholds(dir); crossed != "" {
			why = "crossed: " + crossed
		}
	}
	if code == 0 && err == nil && undelivered(s) {
		// A run never "passes" beside what did not arrive: it was let through.
		return "WARN", fmt.Sprintf("imbench: verdict: %s not failed, %s: %s", filepath.Base(dir), tolerance(dir), orNothing(got))
	}
	if code == 0 {
		return "INFO", fmt.Sprintf("imbench: verdict: %s passed: %s", filepath.Base(dir), orNothing(got))
	}
	return "ERROR", fmt.Sprintf("imbench: verdict: %s failed (exit %d, %s): %s", filepath.Base(dir), code, why, orNothing(got))
}

// undelivered: a delivery owed did not arrive whole, or a send went
// unanswered.
func undelivered(s summary.Summary) bool {
	d := s.Deliveries
	return d.Undelivered() > 0 || d.Corrupted > 0 || s.Messages.Unanswered > 0
}

// tolerance says why a run with undelivered counts did not fail: the
// thresholds by which its workload relaxed imbench's integrity defaults, or
// that thresholds were off.
func tolerance(dir string) string {
	rs, err := summary.LoadThresholds(dir)
	if err != nil || rs == nil {
		return "thresholds off (-no-thresholds)"
	}
	var relaxed []string
	for _, r := range rs {
		if _, integrity := runner.IntegrityThresholds[r.Metric]; integrity && !r.Implicit && r.Passed {
			relaxed = append(relaxed, r.Metric+" "+r.Expr)
		}
	}
	if len(relaxed) == 0 {
		return "its thresholds held"
	}
	return "the workload allows " + strings.Join(relaxed, ", ")
}

// crossedThresholds names the run's failed thresholds, "metric expr" each.
func crossedThresholds(dir string) string {
	rs, err := summary.LoadThresholds(dir)
	if err != nil {
		return ""
	}
	var out []string
	for _, r := range rs {
		if !r.Passed {
			out = append(out, r.Metric+" "+r.Expr)
		}
	}
	return strings.Join(out, ", ")
}

func orNothing(s string) string {
	if s == "" {
		return "nothing owed"
	}
	return s
}
