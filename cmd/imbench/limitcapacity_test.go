package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/testmachine"
	"github.com/imbench/imbench/load/limit"
)

// A reference target that serves a capacity drawn at random in 150–800
// messages a second on one core (nobody told the search), beside a second
// reference target of the same name keeping a whole core busy: the search
// over each protocol finds the capacity within ±10 %, names the target's
// process as what gave out, and measures that process alone (its PID, the
// neighbour counted as the machine's). A break while the neighbour ran is
// the server's where it repeats.
func TestLimitFindsTheTargetsCapacity(t *testing.T) {
	testmachine.Alone(t)
	nb, nbArgs := targetArgs(t, "-fault-busy", "1")
	neighbour := launchTarget(t, nb, nbArgs)
	for _, proto := range []string{"openim", "wukongim", "wildfire"} {
		t.Run(proto, func(t *testing.T) {
			capacity := float64(150 + rand.IntN(651))
			t.Logf("capacity %g msg/s", capacity)
			tg, args := targetArgs(t, "-fault-capacity", strconv.FormatFloat(capacity, 'f', -1, 64))
			own := launchTarget(t, tg, args)
			results := t.TempDir()
			r := imbench(t, append(tg.env(), "IMBENCH_NO_OBSERVE=1"), "limit", "-scenario", mustAbs(t, "testdata/limit-pairs.js"),
				"-protocol", proto, "-start", "100", "-resolution", "0.1", "-step", "5s", "-slo", "e2e_p99<100,lost==0", "-q", "-results", results)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			res := readResult(t, results, r.stdout)
			if res.Limit < 0.9*capacity || res.Limit > 1.1*capacity || res.Knee <= res.Limit {
				t.Fatalf("limit %g, knee %g for a capacity of %g\n%s", res.Limit, res.Knee, capacity, r.stdout)
			}
			if res.Saturated.Component != "imbench-target" || res.Saturated.Generator || res.GeneratorLimited {
				t.Fatalf("saturated %+v\n%s", res.Saturated, r.stdout)
			}
			if !strings.Contains(r.stdout, "imbench: limit ") || !strings.Contains(r.stdout, "gave out first: imbench-target") {
				t.Fatalf("no result line:\n%s", r.stdout)
			}
			want := fmt.Sprintf("the target measured: imbench-target (PID %d)", own.Process.Pid)
			if !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "other process") {
				t.Fatalf("no %q:\n%s", want, r.stdout)
			}
			for _, st := range res.Steps {
				var u *limit.Usage
				for i := range st.Usage {
					if st.Usage[i].Component == "imbench-target" {
						u = &st.Usage[i]
					}
				}
				if u == nil || len(u.PIDs) != 1 || u.PIDs[0] != own.Process.Pid || u.Processes != 1 || u.Others < 1 {
					t.Fatalf("step %d measured %+v (own PID %d, the neighbour's %d)", st.N, u, own.Process.Pid, neighbour.Process.Pid)
				}
				// The target spends 1/capacity s of a core on a message, the
				// neighbour a whole core: counted in, the CPU column of a step
				// below the capacity would show it.
				if st.Asked <= 0.9*capacity && u.CPUAvg > 100*st.Asked/capacity+25 {
					t.Fatalf("step %d at %g msg/s: the target's CPU %.0f %% (the neighbour's counted in?)", st.N, st.Asked, u.CPUAvg)
				}
				if st.Settled > 20 {
					t.Fatalf("step %d waited %.0f s for the server to settle: the neighbour's CPU was waited on", st.N, st.Settled)
				}
			}
			if !strings.Contains(limit.MeasuredText(res), fmt.Sprintf("imbench-target: PID %d", own.Process.Pid)) {
				t.Fatalf("measured: %s", limit.MeasuredText(res))
			}
		})
	}
}
