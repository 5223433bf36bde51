package limit

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/runner"
)

// fakeServer is a server of a given capacity, met through the Stepper
// interface: each step's summary is what such a server gives (a backlog
// over its capacity), its usage a core busy in proportion.
type fakeServer struct {
	capacity float64
	env      [][]string
	leave    int // the step whose clean-up leaves 3 users
}

func (f *fakeServer) RunStep(_ context.Context, r StepRun) (summary.Summary, error) {
	f.env = append(f.env, r.Env)
	var s summary.Summary
	s.RunID = r.RunID
	start := time.Now().Add(-10 * time.Second)
	s.Messages.FirstSendMs, s.Messages.LastSendMs = start.UnixMilli(), start.Add(10*time.Second).UnixMilli()
	s.Messages.Sent, s.Messages.Acked = int64(10*r.Asked), int64(10*r.Asked)
	s.Deliveries.Expected, s.Deliveries.Received = s.Messages.Sent, s.Messages.Sent
	s.Latency.E2E = summary.LatencySummary{Count: s.Messages.Sent, P50: 5, P99: 20}
	if r.Asked > f.capacity {
		s.Latency.E2E.P50, s.Latency.E2E.P99 = 2000, 4000
	}
	if r.N == f.leave {
		rec := runner.TeardownRecord{Target: "reference", Removed: engine.Removal{Users: 10, UsersLeft: 3}}
		raw, _ := json.Marshal(rec)
		os.MkdirAll(r.Dir, 0o755)
		os.WriteFile(filepath.Join(r.Dir, runner.TeardownFile), raw, 0o644)
	}
	return s, nil
}

// usage is the server's core over a step, where it does not run here.
func (f *fakeServer) usage(_ context.Context, s summary.Summary, from, to time.Time) []Usage {
	rate := float64(s.Messages.Sent) / to.Sub(from).Seconds()
	return []Usage{{Component: "fake-server", Role: "target", Processes: 1, CPUAvg: min(100, 100*rate/f.capacity), CPUBusiestThread: min(100, 100*rate/f.capacity)}}
}

// The search on this machine, driven through a Stepper with no CLI: it
// finds the capacity, sets each step's load and run id in its
// environment, runs the before-step command told the step and load,
// waits for the server to settle after a broken step, says what a
// step's clean-up left, and writes nothing of its own (the caller does).
func TestSearchDrivesStepsThroughAStepper(t *testing.T) {
	results := t.TempDir()
	f := &fakeServer{capacity: 430, leave: 2}
	var out bytes.Buffer
	hookLog := filepath.Join(t.TempDir(), "hooks")
	s := &Search{ID: "fake", Scenario: "pairs", Target: profile.Profile{Name: "fake", Processes: []profile.Process{{Group: "fake-server", Comm: []string{"no-such-process"}}}},
		Params: Params{Dimension: "rate", Start: 100, Resolution: 0.05, MaxSteps: 20, Confirm: -1}, Objective: objective(t, "e2e_p99<1000,lost==0"),
		StepTime: 10 * time.Second, ResultsDir: results, Steps: f, Out: &out, Roles: map[string]string{"fake-server": "target"},
		RemoteUsage: f.usage, BeforeStep: `echo "$IMBENCH_STEP $IMBENCH_LOAD" >> ` + hookLog, Waits: Waits{SettleAbsent: time.Millisecond}}
	res, err := s.Start(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if res.Limit > 430 || res.Limit < 430*0.95 || res.Knee <= 430 || res.SearchID != "fake" || res.Saturated.Component != "fake-server" {
		t.Fatalf("limit %g, knee %g, saturated %+v\n%s", res.Limit, res.Knee, res.Saturated, out.String())
	}
	hooks, _ := os.ReadFile(hookLog)
	lines := strings.Split(strings.TrimSpace(string(hooks)), "\n")
	if len(lines) != len(res.Steps) {
		t.Fatalf("%d steps, the before-step command ran %d times: %q", len(res.Steps), len(lines), hooks)
	}
	for i, st := range res.Steps {
		want := []string{"IM_RATE=" + strconv.FormatFloat(st.Asked, 'f', -1, 64), "IM_DURATION=10s", "IM_RUN_ID=fake_s" + strconv.Itoa(st.N)}
		if !slices.Equal(f.env[i], want) || lines[i] != strconv.Itoa(st.N)+" "+strconv.FormatFloat(st.Asked, 'f', -1, 64) {
			t.Errorf("step %d: env %q, before-step %q", st.N, f.env[i], lines[i])
		}
		if i > 0 && !res.Steps[i-1].Held && st.Settled <= 0 {
			t.Errorf("step %d after a broken one: settled %g s", st.N, st.Settled)
		}
		if left := st.Left != ""; left != (st.N == 2) || left && st.Left != "3 users" {
			t.Errorf("step %d: left %q", st.N, st.Left)
		}
	}
	if n := strings.Count(out.String(), "waiting for the server to settle"); n != res.Steps[len(res.Steps)-1].N-res.LimitStep && n == 0 {
		t.Errorf("settle lines: %d\n%s", n, out.String())
	}
	if _, err := os.Stat(filepath.Join(results, "fake", "limit.json")); err == nil {
		t.Error("the search wrote limit.json itself")
	}
}

// A before-step command that fails stops the search before its step's load.
func TestAFailingBeforeStepStopsTheSearch(t *testing.T) {
	f := &fakeServer{capacity: 1000}
	s := &Search{ID: "hook", Target: profile.Profile{Name: "fake"}, Params: Params{Start: 100}, Objective: objective(t, "e2e_p99<1000"),
		StepTime: 10 * time.Second, ResultsDir: t.TempDir(), Steps: f, BeforeStep: "exit 3"}
	res, err := s.Start(context.Background())
	if err == nil || len(res.Steps) != 0 || len(f.env) != 0 || !strings.Contains(err.Error(), "step 1: the before-step command failed") {
		t.Fatalf("err %v, %d steps, %d run", err, len(res.Steps), len(f.env))
	}
}

// A step whose clean-up left users or groups on the target says so in its
// line, with its run id and the make clean-target that removes them.
func TestAStepSaysWhatItsCleanUpLeft(t *testing.T) {
	dir := t.TempDir()
	if got := leftBy(dir); got != "" {
		t.Fatalf("no teardown.json: %q", got)
	}
	rec := runner.TeardownRecord{Target: "wildfire", Removed: engine.Removal{Users: 80, UsersLeft: 45, GroupsLeft: 1}}
	raw, _ := json.Marshal(rec)
	if err := os.WriteFile(filepath.Join(dir, runner.TeardownFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	st := Step{N: 3, Asked: 400, RunID: "lim_s3", Left: leftBy(dir)}
	if line := StepLine(st, "rate"); !strings.HasSuffix(line, "; its clean-up left 45 users, 1 group on the target: make clean-target RUN=lim_s3 removes them") {
		t.Fatalf("%q", line)
	}
}
