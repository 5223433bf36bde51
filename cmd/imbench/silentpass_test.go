package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/internal/testmachine"
)

// A workload file of the user's own, with no thresholds at all, still fails
// (exit 99) when what it expected did not arrive: lost (a batch the target
// acknowledged and dropped) or late (held past the drain), over every
// protocol, and its verdict line says failed and why.
func TestAWorkloadWithoutThresholdsFailsWhatItDidNotDeliver(t *testing.T) {
	testmachine.Shared(t)
	script := filepath.Join(t.TempDir(), "mine.js")
	if err := os.WriteFile(script, []byte(`import im from 'imbench';
export const plan = im.workload({
  name: 'mine', classes: [{ kind: 'pairs', pairs: 2, allOnline: true, rate: 40, pace: 'burst', messages: 40 }],
  runId: __ENV.IM_RUN_ID,
});
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		flags      []string
		env        []string
	}{
		{"batch-drop", "lost", []string{"-fault-batch-drop", "3"}, nil},
		{"delay", "late", []string{"-fault-delay", "40s"}, []string{"IM_DRAIN_TIMEOUT=4s", "IM_DRAIN_SYNC=off"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			testmachine.Shared(t)
			tg := startTarget(t, c.flags...)
			for _, proto := range []string{"openim", "wukongim", "wildfire"} {
				results := t.TempDir()
				r := imbench(t, append(tg.env(), c.env...), "run", "-scenario", script, "-protocol", proto, "-results", results)
				last := lastLine(r.stdout)
				if r.code != 99 || !strings.Contains(last, " failed (exit 99, crossed: ") || !strings.Contains(last, c.want+" count==0") ||
					!strings.Contains(last, " "+c.want) || strings.Contains(last, "passed") {
					t.Errorf("%s: exit %d, verdict %q\nstdout:\n%s\nstderr:\n%s", proto, r.code, last, r.stdout, r.stderr)
				}
				if !strings.Contains(r.stdout, "✗ "+c.want+" count==0") || !strings.Contains(r.stdout, "imbench's integrity default") {
					t.Errorf("%s: the implicit threshold is not listed:\n%s", proto, r.stdout)
				}
				// Each second's 80 (two pairs of 40) sent in one burst: the peak is the
				// busiest second's count, not a rate of the burst's own.
				s, err := summary.Load(filepath.Join(results, "latest", "summary.json"))
				if err != nil || s.Messages.PeakPerSecond != slices.Max(s.Messages.PerSecond) || s.Messages.PeakPerSecond > 80 ||
					!strings.Contains(r.stdout, fmt.Sprintf("| Message Rate           | Peak %d msg/s", s.Messages.PeakPerSecond)) {
					t.Errorf("%s: peak %d, per second %v (%v)", proto, s.Messages.PeakPerSecond, s.Messages.PerSecond, err)
				}
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// A run that did not put out the load it planned fails and says so: one
// sender planned at 20 msg/s against a server that answers each message
// 100 ms late sends at most 10 a second, and the verdict names send_pace
// (imbench's default, 90 % of the plan's pace) while every delivery
// arrived; the table's rate row says how far behind it was. A closed
// class beside it, which has no pace of its own, does not switch the
// check off: the open class is judged alone.
func TestARunThatMissedItsPaceFails(t *testing.T) {
	testmachine.Shared(t)
	script := filepath.Join(t.TempDir(), "paced.js")
	if err := os.WriteFile(script, []byte(`import im from 'imbench';
export const plan = im.workload({
  name: 'paced', classes: [
    { kind: 'pairs', pairs: 1, allOnline: true, rate: 20, duration: '4s' },
    { kind: 'pairs', pairs: 1, allOnline: true, inFlight: 2, messages: 10 },
  ],
  runId: __ENV.IM_RUN_ID,
});
`), 0o644); err != nil {
		t.Fatal(err)
	}
	tg := startTarget(t, "-fault-ack-late", "1", "-fault-ack-late-by", "100ms")
	for _, proto := range []string{"openim", "wukongim", "wildfire"} {
		results := t.TempDir()
		r := imbench(t, tg.env(), "run", "-scenario", script, "-protocol", proto, "-results", results)
		last := lastLine(r.stdout)
		s, err := summary.Load(filepath.Join(results, "latest", "summary.json"))
		if err != nil {
			t.Fatalf("%s: %v\n%s\n%s", proto, err, r.stdout, r.stderr)
		}
		pace, ok := s.Messages.Pace()
		if r.code != 99 || !ok || pace > 0.75 || !strings.Contains(last, "crossed: send_pace value>=0.9") || s.Deliveries.Lost != 0 {
			t.Errorf("%s: exit %d, pace %.2f (%v), lost %d, verdict %q\n%s", proto, r.code, pace, ok, s.Deliveries.Lost, last, r.stdout)
		}
		most, _ := s.Messages.BehindPlan()
		if want := fmt.Sprintf("up to %d messages behind the plan", most); most < 20 || !strings.Contains(r.stdout, want) {
			t.Errorf("%s: behind the plan by %d at worst, %q not in the table:\n%s", proto, most, want, r.stdout)
		}
		if want := fmt.Sprintf("sent at %.0f %% of the plan's pace (class 1)", 100*pace); !strings.Contains(r.stdout, want) {
			t.Errorf("%s: no %q in the table:\n%s", proto, want, r.stdout)
		}
	}
}
