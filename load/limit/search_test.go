package limit

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/summary"
)

// model is a server that serves n messages a second on one core: below n
// its latency is low and its core partly busy; above, the backlog pushes
// the p99 up and the core is full. gen is the most the generator puts out.
func model(n, gen float64) StepFunc {
	return func(_ context.Context, step int, asked float64) (Step, error) {
		sent := min(asked, gen)
		p99 := 20.0
		cpu := 100 * sent / n
		if sent > n {
			p99, cpu = 5000, 100 // a backlog from the first message over
		}
		var s summary.Summary
		s.Latency.E2E = summary.LatencySummary{Count: 1, P99: p99}
		return Step{N: step, Asked: asked, Achieved: sent, E2EP99: p99, AckAvg: 1, Summary: s, GeneratorCores: 0.2,
			Usage: []Usage{{Component: "imbench-target", Role: "target", Processes: 1, CPUAvg: min(cpu, 100), CPUBusiestThread: min(cpu, 100)}}}, nil
	}
}

func objective(t *testing.T, text string) Objective {
	t.Helper()
	o, err := ParseObjective(text)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestSearchFindsTheCapacity(t *testing.T) {
	for _, n := range []float64{137, 1000, 4321} {
		r, err := Run(context.Background(), Params{Start: 50, Resolution: 0.05}, objective(t, "e2e_p99<1000,lost==0"), Machine{Cores: 8, GeneratorCores: 8}, model(n, 1e9), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Limit > n || r.Limit < n*0.95 || r.Knee <= n || (r.Knee-r.Limit)/r.Limit > 0.05 {
			t.Errorf("capacity %g: limit %g, knee %g (%d steps, stopped %q)", n, r.Limit, r.Knee, len(r.Steps), r.Stopped)
		}
		if r.Saturated.Component != "imbench-target" || r.Saturated.Generator || r.GeneratorLimited {
			t.Errorf("capacity %g: saturated %+v", n, r.Saturated)
		}
		if k := r.Step(r.KneeStep); k == nil || k.Held || len(k.Broken) == 0 || !strings.HasPrefix(k.Broken[0], "e2e_p99 value<1000") {
			t.Errorf("capacity %g: knee step %+v", n, k)
		}
	}
}

// A generator that cannot put out the load while the server has room: the
// search says so and never reports that load as the server's limit.
func TestSearchNamesTheGenerator(t *testing.T) {
	r, err := Run(context.Background(), Params{Start: 100}, objective(t, "e2e_p99<1000"), Machine{Cores: 8, GeneratorCores: 8}, model(5000, 700), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.GeneratorLimited || !r.Saturated.Generator || r.Saturated.Component != "imbench" || r.Saturated.Advice == "" {
		t.Fatalf("result %+v", r)
	}
	if r.Limit != 400 || r.Knee != 0 {
		t.Fatalf("a limit of the server's reported: limit %g knee %g", r.Limit, r.Knee)
	}
}

func TestSearchBreaksAtTheStart(t *testing.T) {
	r, err := Run(context.Background(), Params{Start: 800, Resolution: 0.1}, objective(t, "e2e_p99<1000"), Machine{Cores: 8, GeneratorCores: 8}, model(100, 1e9), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Limit > 100 || r.Limit < 90 {
		t.Fatalf("limit %g after %d steps", r.Limit, len(r.Steps))
	}
}

func TestSearchHeldAtItsMost(t *testing.T) {
	r, err := Run(context.Background(), Params{Start: 100, Max: 500}, objective(t, "e2e_p99<1000"), Machine{Cores: 8, GeneratorCores: 8}, model(1e6, 1e9), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Limit != 500 || r.Knee != 0 || len(r.Steps) != 5 || !r.Confirmed || !r.Steps[4].Confirm || r.Steps[4].Asked != 500 {
		t.Fatalf("limit %g knee %g steps %d confirmed %v", r.Limit, r.Knee, len(r.Steps), r.Confirmed)
	}
}

func TestObjectiveRefusesWhatNoRunHas(t *testing.T) {
	for _, bad := range []string{"", "e2e_p99", "lsot==0", "e2e_p99<<3"} {
		if _, err := ParseObjective(bad); err == nil {
			t.Errorf("objective %q accepted", bad)
		}
	}
	o := objective(t, "e2e_p99<1000, lost==0, integrity>=0.999, duplicates{conv_type:group}==0, login_p99<5000")
	if len(o.Thresholds) != 5 || o.Thresholds["login_time"][0] != "p(99)<5000" || o.Thresholds["e2e_p99"][0] != "value<1000" || o.Thresholds["integrity"][0] != "rate>=0.999" {
		t.Fatalf("thresholds %v", o.Thresholds)
	}
}

// A generator whose receiving uses every core it may use breaks the
// objective by its own lag: the search names it, not the server.
func TestSearchNamesAGeneratorAtItsCores(t *testing.T) {
	busy := func(_ context.Context, n int, asked float64) (Step, error) {
		st, _ := model(1e6, 1e9)(context.Background(), n, asked)
		if asked > 300 {
			st.E2EP99, st.Summary.Latency.E2E.P99, st.GeneratorCores = 4000, 4000, 0.97
		}
		return st, nil
	}
	r, err := Run(context.Background(), Params{Start: 100}, objective(t, "e2e_p99<1000"), Machine{Cores: 2, GeneratorCores: 1}, busy, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.GeneratorLimited || r.Saturated.Component != "imbench" || r.Limit != 200 || r.Knee != 0 {
		t.Fatalf("limit %g knee %g saturated %+v", r.Limit, r.Knee, r.Saturated)
	}
}

// The machine's cores busy with what is not the server: the machine is
// named, not a part of the server.
func TestSearchNamesABusyMachine(t *testing.T) {
	st := Step{N: 1, Asked: 100, Achieved: 100, MachineBusy: 0.97, GeneratorCores: 0.2,
		Usage: []Usage{{Component: "imbench-target", Role: "target", Processes: 1, CPUAvg: 30}}}
	if s := saturationOf(&st, nil, Machine{Cores: 2, GeneratorCores: 2}); s.Component != "the machine" || s.Generator {
		t.Fatalf("saturation %+v", s)
	}
	st.Usage[0].CPUAvg = 150
	if s := saturationOf(&st, nil, Machine{Cores: 2, GeneratorCores: 2}); s.Component != "imbench-target" {
		t.Fatalf("saturation %+v", s)
	}
}

// A process at one core whose threads share the work is not a part at one
// core: a Go server's goroutines run on every thread.
func TestOneCoreIsAThreads(t *testing.T) {
	st := Step{N: 3, Asked: 800, Achieved: 800, AckAvg: 1, GeneratorCores: 0.1,
		Usage: []Usage{{Component: "server", Role: "target", Processes: 1, CPUAvg: 100, CPUBusiest: 100, CPUBusiestThread: 30}}}
	if s := saturationOf(&st, nil, Machine{Cores: 8, GeneratorCores: 8}); s.Component != "" {
		t.Fatalf("saturation %+v", s)
	}
	st.Usage[0].CPUBusiestThread = 97
	if s := saturationOf(&st, nil, Machine{Cores: 8, GeneratorCores: 8}); s.Component != "server" || !strings.Contains(s.Why, "busiest thread") {
		t.Fatalf("saturation %+v", s)
	}
}

// On a virtual machine whose host ran its cores for others 8 % of a step,
// a thread that ran all it was given shows 86 % of its core: at its core
// all the same. Without the steal, 86 % is not.
func TestAThreadAtItsCoreLessTheSteal(t *testing.T) {
	st := Step{N: 7, Asked: 650, Achieved: 650, AckAvg: 0.2, GeneratorCores: 0.09, MachineBusy: 0.55, MachineStolen: 0.08,
		Usage: []Usage{{Component: "imbench-target", Role: "target", Processes: 1, CPUAvg: 96, CPUBusiest: 96, CPUBusiestThread: 86}}}
	m := Machine{Cores: 2, GeneratorCores: 2}
	if s := saturationOf(&st, nil, m); s.Rule != RuleServerThread || s.Component != "imbench-target" || !strings.Contains(s.Why, "less the 8 % its host took") {
		t.Fatalf("saturation %+v", s)
	}
	st.MachineStolen = 0
	if s := saturationOf(&st, nil, m); s.Rule != RuleUnseen {
		t.Fatalf("86 %% of a core with nothing stolen: %+v", s)
	}
}

// A knee whose first run saw nothing give out and whose run again broke
// with the server's thread at its core: the search names the thread.
func TestTheKneeRunAgainNamesWhatGaveOut(t *testing.T) {
	at := func(n int, asked, thread float64, held bool) Step {
		return Step{N: n, Asked: asked, Achieved: asked, AckAvg: 0.2, GeneratorCores: 0.09, Held: held,
			Usage: []Usage{{Component: "imbench-target", Role: "target", Processes: 1, CPUAvg: thread + 5, CPUBusiestThread: thread}}}
	}
	r := Result{Machine: Machine{Cores: 2, GeneratorCores: 2}, KneeStep: 2,
		Steps: []Step{at(1, 600, 80, true), at(2, 650, 86, false), at(3, 700, 97, false), at(4, 650, 95, false)}}
	if s := r.saturation(); s.Rule != RuleServerThread || !strings.Contains(s.Why, "at step 4") {
		t.Fatalf("saturation %+v", s)
	}
	// Not a run at another load: step 3 (700 msg/s) is not the knee's.
	r.Steps = r.Steps[:3]
	if s := r.saturation(); s.Rule != RuleUnseen {
		t.Fatalf("saturation %+v", s)
	}
}

// On a machine busy but not full, a part whose work runs on one thread
// gets less than its core: its thread runs 88 % of the step and waits for
// a core the rest (what a 2-core CI runner showed). It never slept: the
// part is at its core; without the wait it is not, nor where the machine
// was full (its neighbours' doing: "machine busy, other processes").
func TestThreadThatNeverSlept(t *testing.T) {
	st := Step{N: 7, Asked: 750, Achieved: 750, AckAvg: 0.2, GeneratorCores: 0.12, MachineBusy: 0.6,
		Usage: []Usage{{Component: "imbench-target", Role: "target", Processes: 1, CPUAvg: 89, CPUBusiest: 89, CPUBusiestThread: 88, ThreadRunnable: 99, ThreadWaiting: 11}}}
	m := Machine{Cores: 2, GeneratorCores: 2}
	s := saturationOf(&st, nil, m)
	if s.Rule != RuleServerThreadWaited || s.Component != "imbench-target" || !strings.Contains(s.Why, "waited for a core 11 %") {
		t.Fatalf("saturation %+v", s)
	}
	// It had less than its core: what took a quarter of the machine
	// beside it disturbed the step (60 % of 2 cores is 120 % of one; the
	// server and the generator 101 %, others 19 %: not disturbed; at 80 %,
	// others 59 %: disturbed).
	st.Held = false
	if d := disturbedBy(&st, s, m); d != "" {
		t.Fatalf("disturbed at 19 %% by others: %s", d)
	}
	st.MachineBusy = 0.8
	if d := disturbedBy(&st, s, m); d == "" {
		t.Fatal("not disturbed with others at 59 % of one core")
	}
	st.MachineBusy = 0.6
	st.Usage[0].ThreadRunnable, st.Usage[0].ThreadWaiting = 89, 1
	if s := saturationOf(&st, nil, m); s.Rule != RuleUnseen {
		t.Fatalf("a thread that slept: %+v", s)
	}
	st.Usage[0].ThreadRunnable, st.Usage[0].ThreadWaiting, st.MachineBusy = 99, 11, 0.97
	if s := saturationOf(&st, nil, m); s.Rule != RuleServerMachine && s.Rule != RuleMachine {
		t.Fatalf("a full machine: %+v", s)
	}
}

// A step that sent less than asked with the generator's cores to spare:
// its senders waited for answers. Answers as quick as at the lowest load
// mean too few senders; slower ones, a server that did not keep up.
func TestShortfallNamesWhoSetThePace(t *testing.T) {
	base := Step{N: 1, Asked: 400, Achieved: 400, AckAvg: 0.7, GeneratorCores: 0.1}
	st := Step{N: 3, Asked: 1600, Achieved: 1450, AckAvg: 0.68, GeneratorCores: 0.14,
		Usage: []Usage{{Component: "server", Role: "target", Processes: 1, CPUAvg: 64, CPUBusiestThread: 20}}}
	st.Summary.Messages.Sent = 1450
	s := saturationOf(&st, &base, Machine{Cores: 2, GeneratorCores: 2})
	if s.Component != "imbench" || !s.Generator || !strings.Contains(s.Advice, "more senders") {
		t.Fatalf("flat answers: %+v", s)
	}
	// The server's memory grows with the load it is given: answering as
	// fast as ever, it did not hold the senders back.
	st.Usage[0].RSSAvg, st.Usage[0].RSSGrowth = 80<<20, 30<<20
	if s := saturationOf(&st, &base, Machine{Cores: 2, GeneratorCores: 2}); s.Component != "imbench" || !s.Generator {
		t.Fatalf("flat answers, the server's memory growing: %+v", s)
	}
	st.AckAvg = 4
	if s := saturationOf(&st, &base, Machine{Cores: 2, GeneratorCores: 2}); s.Component != "server" || !strings.Contains(s.Why, "memory grew") {
		t.Fatalf("slower answers, the server's memory growing: %+v", s)
	}
	// A server just started grows as much at the lowest load: no queue.
	base.Usage = []Usage{{Component: "server", Role: "target", RSSAvg: 60 << 20, RSSGrowth: 28 << 20}}
	if s := saturationOf(&st, &base, Machine{Cores: 2, GeneratorCores: 2}); s.Rule != RuleServerPace {
		t.Fatalf("memory growing as at the lowest load: %+v", s)
	}
	base.Usage = nil
	st.Usage[0].RSSGrowth = 0
	s = saturationOf(&st, &base, Machine{Cores: 2, GeneratorCores: 2})
	if s.Component != "server" || s.Generator || !strings.Contains(s.Why, "slowed from 0.70 ms") {
		t.Fatalf("slower answers: %+v", s)
	}
	// The search goes on below such a step: the server set the pace.
	run := func(_ context.Context, n int, asked float64) (Step, error) {
		x := st
		x.N, x.Asked, x.Achieved, x.AckAvg = n, asked, min(asked, 1000), 0.7
		if asked > 1000 {
			x.AckAvg = 0.7 * asked / 1000
		}
		return x, nil
	}
	r, err := Run(context.Background(), Params{Start: 250, Resolution: 0.05}, objective(t, "ack_avg<1000"), Machine{Cores: 8, GeneratorCores: 8}, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.GeneratorLimited || r.Limit < 950 || r.Limit > 1000/0.95 || r.Saturated.Component != "server" {
		t.Fatalf("limit %g knee %g stopped %q saturated %+v", r.Limit, r.Knee, r.Stopped, r.Saturated)
	}
}

// A send-only search (no delivery owed) draws the answer time against
// acknowledged messages, not an empty e2e chart.
func TestKneeChartOfASendOnlySearch(t *testing.T) {
	r := Result{Params: Params{Dimension: "rate"}, Objective: "ack_p99<50", LimitStep: 1, KneeStep: 2, Steps: []Step{
		{N: 1, Asked: 100, Acked: 100, AckP50: 1, AckP99: 4, Held: true},
		{N: 2, Asked: 200, Acked: 150, AckP50: 30, AckP99: 90}}}
	page := string(HTML(r))
	if !strings.Contains(page, `data-measure="ack"`) || !strings.Contains(page, "acknowledged msg/s 150") || !strings.Contains(page, "objective 50 ms") {
		t.Fatalf("knee chart:\n%s", page)
	}
	r.Steps[0].Expected, r.Steps[0].Deliveries, r.Steps[0].E2EP99 = 1000, 1000, 12
	if page := string(HTML(r)); !strings.Contains(page, `data-measure="ack"`) {
		t.Fatal("a search whose objective is on the answer time not drawn by it")
	}
	r.Objective = "e2e_p99<100"
	if page := string(HTML(r)); !strings.Contains(page, `data-measure="e2e"`) {
		t.Fatal("a search with deliveries owed not drawn by e2e latency")
	}
}

// The knee chart draws the latency the objective names, one line through
// a point a load asked (a re-run replaces a disturbed run, drawn open),
// and an outlier above twice the bound at the top with its figure.
func TestKneeChartDrawsTheObjective(t *testing.T) {
	r := Result{Params: Params{Dimension: "rate"}, Objective: "ack_avg<100,lost==0", LimitStep: 3, KneeStep: 4, Steps: []Step{
		{N: 1, Asked: 100, Acked: 100, Expected: 10, AckAvg: 5, AckP50: 4, AckP99: 40, Held: true, Figures: map[string]float64{"ack_avg": 5}},
		{N: 2, Asked: 200, Acked: 120, Expected: 10, AckAvg: 300, Disturbed: "busy", Figures: map[string]float64{"ack_avg": 300}},
		{N: 3, Asked: 200, Acked: 200, Expected: 10, AckAvg: 20, AckP50: 15, AckP99: 90, Held: true, Figures: map[string]float64{"ack_avg": 20}},
		{N: 4, Asked: 400, Acked: 390, Expected: 10, AckAvg: 9000, AckP50: 8000, AckP99: 20000, Figures: map[string]float64{"ack_avg": 9000}}}}
	page := kneeChart(r)
	for _, want := range []string{`data-line="ack_avg"`, `>ack avg</text>`, `>ack p50</text>`, `data-clipped="4">▲ 9 s<`,
		`data-ymax="200"`, `step 2 (not the server's: run again)`, `data-mark="limit">limit: 200 msg/s asked<`,
		`x="500.0" y="32.0" text-anchor="end" class="label" data-clipped="4"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("%s not in the knee chart:\n%s", want, page)
		}
	}
	// A figure within Ticks' 1 % over the top tick is drawn at the top,
	// not written out as cut (a label over the knee's).
	near := Result{Params: Params{Dimension: "rate"}, Objective: "ack_p99<1000", LimitStep: 1, KneeStep: 2, Steps: []Step{
		{N: 1, Asked: 1800, Acked: 1790, AckP50: 9, AckP99: 54, Held: true},
		{N: 2, Asked: 1900, Acked: 1594, AckP50: 10, AckP99: 60.5}}}
	if c := kneeChart(near); strings.Contains(c, "data-clipped") || !strings.Contains(c, `data-ymax="60"`) {
		t.Fatalf("a figure 1 %% over the top written out as cut:\n%s", c)
	}
	// The line joins steps 1, 3 and 4: three points, not back to step 2's.
	if i := strings.Index(page, `<polyline`); strings.Count(strings.SplitN(page[i:], `points="`, 2)[1][:strings.Index(strings.SplitN(page[i:], `points="`, 2)[1], `"`)], ",") != 3 {
		t.Fatalf("the line is not through one point a load:\n%s", page)
	}
}

// A generator its CPU quota throttled is the limit, named with its quota,
// even with the machine's cores busy and the server's thread full.
func TestAThrottledGeneratorIsNamed(t *testing.T) {
	st := Step{N: 2, Asked: 200, Achieved: 200, MachineBusy: 0.99, GeneratorCores: 0.05, GeneratorThrottled: 0.2,
		Usage: []Usage{{Component: "server", Role: "target", CPUAvg: 95, CPUBusiestThread: 95}}}
	m := Machine{Cores: 2, GeneratorCores: 0.05, GeneratorCoresWhy: "the CPU quota of its cgroup /k: 0.05 of a core"}
	s := saturationOf(&st, nil, m)
	if s.Component != "imbench" || !s.Generator || !strings.Contains(s.Why, "held back by its CPU quota in 20 % of its scheduling periods at step 2 (the CPU quota of its cgroup /k") {
		t.Fatalf("%+v", s)
	}
	st.GeneratorThrottled, st.GeneratorCores = 0.01, 0.02 // hardly held, cores to spare: the server's full thread decides
	if s := saturationOf(&st, nil, m); s.Component != "server" {
		t.Fatalf("%+v", s)
	}
}

// A users step whose logins found the generator's open files at their
// limit names the generator and its ulimit, not the server.
func TestTheGeneratorsOpenFilesAreNamed(t *testing.T) {
	st := Step{N: 4, Asked: 20000, Online: 19500}
	st.Summary.Users.LoginFailures = &summary.LoginCauses{OpenFiles: 500}
	s := saturationOf(&st, nil, Machine{Cores: 2, GeneratorCores: 2, GeneratorOpenFiles: 20000})
	if s.Component != "imbench" || !s.Generator || s.Why != "500 login attempts at step 4 found the generator's open files at their limit (ulimit -n 20000)" {
		t.Fatalf("%+v", s)
	}
}

// busyAt wraps a model: the steps listed broke while other processes took
// a core and a half of a 2-core machine. How they broke is how: "repeats"
// (e2e p99 3 s each time, the server at its share of a core), "varies"
// (a p99 a quarter higher each run) or "starved" (the server's thread
// waited for a core most of the step).
func busyAt(inner StepFunc, busy func(n int, asked float64) bool, how string) StepFunc {
	return func(ctx context.Context, n int, asked float64) (Step, error) {
		st, err := inner(ctx, n, asked)
		if err != nil {
			return st, err
		}
		if !busy(n, asked) {
			st.MachineBusy = (st.GeneratorCores*100 + st.Usage[0].CPUAvg + 10) / 200
			return st, nil
		}
		p99 := 3000.0
		switch how {
		case "varies":
			p99 = 1000 * math.Pow(1.25, float64(n))
		case "starved":
			st.Usage[0].ThreadRunnable, st.Usage[0].ThreadWaiting = 95, 80
		}
		st.E2EP99, st.Summary.Latency.E2E.P99 = p99, p99
		if how != "repeats" {
			st.Usage[0].CPUAvg, st.Usage[0].CPUBusiestThread = 30, 30
		} else {
			st.Usage[0].CPUBusiestThread = min(st.Usage[0].CPUBusiestThread, 80) // a busy core's share
		}
		st.MachineBusy = 1
		return st, nil
	}
}

// A step that broke while the machine's other processes took its cores
// and held when run again is no knee: the limit found is the server's. The
// limit runs once more and holds: confirmed, with its spread.
func TestSearchRunsADisturbedStepAgain(t *testing.T) {
	r, err := Run(context.Background(), Params{Start: 100, Resolution: 0.1}, objective(t, "e2e_p99<1000"), Machine{Cores: 2, GeneratorCores: 2},
		busyAt(model(300, 1e9), func(n int, _ float64) bool { return n == 2 }, "varies"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Undetermined || r.Limit < 270 || r.Limit > 300 || !r.Confirmed || r.Spread == nil || r.Spread.Runs != 2 || r.Spread.Held != 2 {
		t.Fatalf("limit %g knee %g undetermined %v confirmed %v spread %+v stopped %q", r.Limit, r.Knee, r.Undetermined, r.Confirmed, r.Spread, r.Stopped)
	}
	if s := r.Steps[1]; s.Asked != 200 || s.Disturbed == "" || !strings.Contains(s.Disturbed, "other processes took") || r.Steps[2].Asked != 200 || !r.Steps[2].Held {
		t.Fatalf("steps %+v", r.Steps[:3])
	}
	if k := r.Step(r.KneeStep); k == nil || k.Disturbed != "" || k.Cause == nil || k.Cause.Rule != RuleServerThread {
		t.Fatalf("knee %+v", k)
	}
	if line := ResultLine(r); !strings.Contains(line, "; confirmed: 2 of 2 runs at it held") {
		t.Fatalf("%s", line)
	}
}

// A break that repeats is the server's whatever else ran: e2e p99 3 s at
// 200 msg/s each time, the server at its share of a core, decides the
// knee, and the step says so.
func TestABreakThatRepeatsIsTheServers(t *testing.T) {
	r, err := Run(context.Background(), Params{Start: 100, Resolution: 0.1}, objective(t, "e2e_p99<1000"), Machine{Cores: 2, GeneratorCores: 2},
		busyAt(model(300, 1e9), func(_ int, asked float64) bool { return asked == 200 }, "repeats"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Undetermined || r.Knee != 200 || r.KneeStep != 3 || r.Limit != 187.5 {
		t.Fatalf("limit %g knee %g (step %d) undetermined %v stopped %q", r.Limit, r.Knee, r.KneeStep, r.Undetermined, r.Stopped)
	}
	k := r.Step(3)
	if k.Disturbed != "" || !strings.HasPrefix(k.Evidence, "repeated: e2e_p99 3000 ms at step 2, 3000 ms at step 3 (within 15 %)") || r.Steps[1].Disturbed == "" {
		t.Fatalf("steps %+v\n%+v", r.Steps[1], k)
	}
	if line := ResultLine(r); !strings.Contains(line, "but the break repeated (e2e_p99 3000 ms at step 2") {
		t.Fatalf("%s", line)
	}
}

// Where the machine keeps taking the cores at a load, the server starved
// or its breaks unlike each other, the search reports no limit:
// undetermined on this machine, with the most load held.
func TestSearchUndeterminedOnABusyMachine(t *testing.T) {
	always := func(n int, _ float64) bool { return n >= 2 }
	for _, how := range []string{"varies", "starved"} {
		r, err := Run(context.Background(), Params{Start: 100}, objective(t, "e2e_p99<1000"), Machine{Cores: 2, GeneratorCores: 2},
			busyAt(model(300, 1e9), always, how), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Undetermined || r.Limit != 0 || r.HighestHeld != 100 || len(r.Steps) != 4 || r.Saturated.Component == "imbench-target" {
			t.Fatalf("%s: limit %g highest %g steps %d saturated %+v", how, r.Limit, r.HighestHeld, len(r.Steps), r.Saturated)
		}
		if line := ResultLine(r); !strings.HasPrefix(line, "undetermined on this machine: 3 runs at 200 msg/s broke") || !strings.Contains(line, "the highest load held: 100 msg/s") {
			t.Fatalf("%s: %s", how, line)
		}
		if how == "starved" && !strings.HasPrefix(r.Steps[3].Evidence, "starved: imbench-target's least idle thread waited for a core 80 % of step 4 and ran 15 %") {
			t.Fatalf("evidence %q", r.Steps[3].Evidence)
		}
	}
}

// A limit that does not hold again is no limit: the search goes on below it.
func TestSearchLimitThatFailsItsConfirmation(t *testing.T) {
	seen := map[float64]int{}
	flaky := func(ctx context.Context, n int, asked float64) (Step, error) {
		seen[asked]++
		capacity := 300.0
		if seen[asked] > 1 {
			capacity = asked - 1 // broke when run again
		}
		return model(capacity, 1e9)(ctx, n, asked)
	}
	r, err := Run(context.Background(), Params{Start: 100, Resolution: 0.1}, objective(t, "e2e_p99<1000"), Machine{Cores: 8, GeneratorCores: 8}, flaky, nil)
	if err != nil {
		t.Fatal(err)
	}
	var confirms []Step
	for _, s := range r.Steps {
		if s.Confirm {
			confirms = append(confirms, s)
		}
	}
	if len(confirms) < 2 || confirms[0].Held || r.Limit >= confirms[0].Asked || r.Knee > confirms[0].Asked {
		t.Fatalf("limit %g knee %g confirms %+v", r.Limit, r.Knee, confirms)
	}
}

// A server whose capacity falls as the search runs (a store growing with
// what it was sent): a load it held breaks later, and the result says so.
func TestSearchSaysTheServerHeldLessAsItRan(t *testing.T) {
	steps := 0
	falling := func(ctx context.Context, n int, asked float64) (Step, error) {
		steps++
		return model(1000-40*float64(steps), 1e9)(ctx, n, asked)
	}
	r, err := Run(context.Background(), Params{Start: 200, Resolution: 0.05}, objective(t, "e2e_p99<1000"), Machine{Cores: 8, GeneratorCores: 8}, falling, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Drift, "the server held less as the search went on: ") || !strings.Contains(ResultLine(r), r.Drift) {
		t.Fatalf("drift %q\n%s", r.Drift, ResultLine(r))
	}
	if r, _ := Run(context.Background(), Params{Start: 50}, objective(t, "e2e_p99<1000"), Machine{Cores: 8, GeneratorCores: 8}, model(500, 1e9), nil); r.Drift != "" {
		t.Fatalf("a steady server drifted: %q", r.Drift)
	}
	// A server restarted before each step did not fill up: its starts differ.
	steps = 0
	r, err = Run(context.Background(), Params{Start: 200, Resolution: 0.05, Restarted: true}, objective(t, "e2e_p99<1000"), Machine{Cores: 8, GeneratorCores: 8}, falling, nil)
	if err != nil || !strings.HasPrefix(r.Drift, "the server held less at a later step, though started afresh before each: ") || strings.Contains(r.Drift, "before-step") {
		t.Fatalf("restarted before each step: drift %q (%v)", r.Drift, err)
	}
}

// A server pinned to one core of eight (taskset) that used it all is named
// at its cores, and the step is the server's even while other processes
// kept the rest of the machine busy.
func TestSearchNamesAServerAtItsPinnedCores(t *testing.T) {
	pinned := func(ctx context.Context, n int, asked float64) (Step, error) {
		st, err := model(300, 1e9)(ctx, n, asked)
		st.Usage[0].CPUs = 1
		st.Usage[0].CPUBusiestThread = 40 // its work spread over threads
		st.MachineBusy = 0.9              // the rest of the machine busy
		return st, err
	}
	r, err := Run(context.Background(), Params{Start: 100, Resolution: 0.1}, objective(t, "e2e_p99<1000"), Machine{Cores: 8, GeneratorCores: 8}, pinned, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Undetermined || r.Saturated.Rule != RuleServerCores || r.Saturated.Component != "imbench-target" ||
		!strings.Contains(r.Saturated.Why, "of the 1 core it may run on (its CPU affinity)") || r.Limit < 270 || r.Limit > 300 {
		t.Fatalf("limit %g, undetermined %v, saturated %+v", r.Limit, r.Undetermined, r.Saturated)
	}
}

// closedLoop is a server whose senders wait for each answer: above its
// capacity it carries what it can (the senders fall short of the rate
// asked) at a full pinned core, the answers still fast. Its capacity falls
// by fall at every step it runs over it (a store growing).
func closedLoop(capacity, fall float64, steps *int) StepFunc {
	return func(_ context.Context, n int, asked float64) (Step, error) {
		*steps++
		sent, cpu := asked, 97*asked/capacity
		if asked > capacity {
			sent, cpu = capacity, 97
			capacity *= 1 - fall
		}
		var s summary.Summary
		s.Messages.Sent = int64(sent * 30)
		return Step{N: n, Asked: asked, Achieved: sent, AckAvg: 1 + 10*cpu/97, Summary: s, GeneratorCores: 0.1,
			Usage: []Usage{{Component: "wukongim", Role: "target", Processes: 1, CPUs: 1, CPUAvg: cpu, CPUBusiestThread: 30}}}, nil
	}
}

// A server at its capacity carries about that rate whatever is asked
// above it: the search asks next what it carried, so it finds the limit
// in fewer steps over the capacity, and a server that slows with every
// such step is found near where it started.
func TestSearchAsksWhatTheServerCarried(t *testing.T) {
	for _, c := range []struct {
		capacity, fall float64
		steps          int // at most
	}{{3100, 0, 10}, {1234, 0, 10}, {3100, 0.01, 13}} {
		steps := 0
		r, err := Run(context.Background(), Params{Start: 400}, objective(t, "ack_avg<1000"), Machine{Cores: 2, GeneratorCores: 1}, closedLoop(c.capacity, c.fall, &steps), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Limit < 0.88*c.capacity || r.Limit > c.capacity/heldShare || !r.Confirmed || steps > c.steps || r.Saturated.Rule != RuleServerCores {
			var asked []float64
			for _, s := range r.Steps {
				asked = append(asked, s.Asked)
			}
			t.Errorf("capacity %g falling %g a step: limit %g confirmed %v in %d steps %v (at most %d); %s", c.capacity, c.fall, r.Limit, r.Confirmed, steps, asked, c.steps, r.Saturated.Rule)
		}
	}
}

// A server that carries more once warm (a JVM compiling its hot paths
// through its first loaded step) breaks a load it holds later: the knee
// runs again, holds, and the search goes on above it to the warm capacity.
func TestSearchRunsTheKneeAgain(t *testing.T) {
	steps := 0
	warming := func(ctx context.Context, n int, asked float64) (Step, error) {
		capacity := 2000.0
		if asked > 1000 && steps < 4 {
			capacity = 1350 // cold: its first step over 1,000 msg/s
		}
		steps++
		return closedLoop(capacity, 0, new(int))(ctx, n, asked)
	}
	r, err := Run(context.Background(), Params{Start: 200}, objective(t, "ack_avg<1000"), Machine{Cores: 2, GeneratorCores: 1}, warming, nil)
	if err != nil {
		t.Fatal(err)
	}
	var held *Step
	for i := range r.Steps {
		if s := &r.Steps[i]; s.Recheck && s.Held {
			held = s
		}
	}
	if held == nil || held.Asked != 1600 || r.Limit < 0.9*2000 || r.Limit > 2000/heldShare || !r.Confirmed || !r.KneeConfirmed {
		t.Fatalf("limit %g knee %g confirmed %v/%v, knee held again: %+v", r.Limit, r.Knee, r.Confirmed, r.KneeConfirmed, held)
	}
	if line := StepLine(*held, "rate"); !strings.HasSuffix(line, "held where it broke before: the server carries more now, the search goes on above it") {
		t.Fatal(line)
	}
	if line := ResultLine(r); !strings.Contains(line, "broke it twice") {
		t.Fatal(line)
	}
	// A steady server: its knee breaks again, and the search ends there.
	r, err = Run(context.Background(), Params{Start: 200}, objective(t, "ack_avg<1000"), Machine{Cores: 2, GeneratorCores: 1}, closedLoop(2000, 0, new(int)), nil)
	if err != nil {
		t.Fatal(err)
	}
	k := r.Steps[len(r.Steps)-2]
	if !r.KneeConfirmed || !k.Recheck || k.Held || k.Asked != r.Knee {
		t.Fatalf("knee %g confirmed %v, its run again %+v", r.Knee, r.KneeConfirmed, k)
	}
}

// A limit that broke once between two runs that held (a server noisy at
// its edge): run a third time as the knee, it held two of three, and the
// search reports it confirmed with that spread.
func TestSearchLimitHeldTwoOfThree(t *testing.T) {
	seen := map[float64]int{}
	noisy := func(ctx context.Context, n int, asked float64) (Step, error) {
		seen[asked]++
		capacity := 2000.0
		if seen[asked] == 2 {
			capacity = 1700 // every load's second run meets a slower server
		}
		return closedLoop(capacity, 0, new(int))(ctx, n, asked)
	}
	r, err := Run(context.Background(), Params{Start: 200}, objective(t, "ack_avg<1000"), Machine{Cores: 2, GeneratorCores: 1}, noisy, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Confirmed || r.Spread == nil || r.Spread.Runs != 3 || r.Spread.Held != 2 || r.Limit < 1900 || r.Limit > 2000/heldShare {
		t.Fatalf("limit %g knee %g confirmed %v spread %+v stopped %q", r.Limit, r.Knee, r.Confirmed, r.Spread, r.Stopped)
	}
	if line := ResultLine(r); !strings.Contains(line, "; confirmed: 2 of 3 runs at it held") {
		t.Fatal(line)
	}
}

// A server of many processes pinned together to one core of two (the
// real OpenIM stack under one taskset) is at its cores when its parts
// used that core between them, though none alone is near it; parts on
// every core, or on a core of their own each, are not.
func TestSaturationNamesPartsThatShareTheirCores(t *testing.T) {
	st := Step{N: 4, Asked: 200, Achieved: 200, Usage: []Usage{
		{Component: "openim-msggateway", Role: "target", CPUAvg: 25, CPUSet: "1"},
		{Component: "kafka", Role: "target", CPUAvg: 35, CPUSet: "1"},
		{Component: "mongo", Role: "target", CPUAvg: 20, CPUSet: "1"},
		{Component: "openim-push", Role: "target", CPUAvg: 9, CPUSet: "1"},
		{Component: "openim-rpc-msg", Role: "target", CPUAvg: 6, CPUSet: "1"},
		{Component: "imbench", Role: "generator", CPUAvg: 30},
	}, GeneratorCores: 0.3, MachineBusy: 0.65}
	m := Machine{Cores: 2, GeneratorCores: 1}
	s := saturationOf(&st, nil, m)
	if s.Rule != RuleServerSharedCores || s.Component != "kafka" || s.Generator ||
		!strings.Contains(s.Why, "pinned to CPU 1 used 95 % of one core between them at step 4, of the 1 core they may run on (their CPU affinity): kafka 35 %, openim-msggateway 25 %, mongo 20 %, 2 more") {
		t.Fatalf("%+v", s)
	}
	if disturbedBy(&st, s, m) != "" {
		t.Fatal("a server at its own cores was disturbed")
	}
	for name, set := range map[string]func(i int) string{
		"every core":       func(int) string { return "0-1" },
		"a core each":      func(i int) string { return fmt.Sprint(i % 2) },
		"affinity unknown": func(int) string { return "" },
	} {
		c := st
		c.Usage = slices.Clone(st.Usage)
		for i := range c.Usage[:5] {
			c.Usage[i].CPUSet = set(i)
		}
		if s := saturationOf(&c, nil, m); s.Rule == RuleServerSharedCores {
			t.Errorf("%s: %+v", name, s)
		}
	}
}

// A search's exit says which of three ends it met: a limit (0), none on
// this machine (ExitUndetermined, not a threshold's 99), or not even the
// smallest load held (99, as a crossed threshold).
func TestTheExitCodeNamesTheEnd(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want int
	}{
		{Result{Limit: 300}, 0},
		{Result{GeneratorLimited: true}, 0},
		{Result{Undetermined: true, HighestHeld: 200}, ExitUndetermined},
		{Result{}, 99},
	} {
		if got := c.r.ExitCode(); got != c.want {
			t.Errorf("%+v: exit %d, want %d", c.r, got, c.want)
		}
	}
}

// A generator under a CPU quota that throttles it at every step: a step
// that sent what it asked and met the objective holds, quota or not; the
// first that did not ends the search, its quota named, and the limit is
// the most load a step put out within the objective. The search
// threw out 1,600 asked, 1,596 sent, p99 134 ms, and said 800.
func TestAThrottledGeneratorsHeldStepsHold(t *testing.T) {
	throttled := func(ctx context.Context, n int, asked float64) (Step, error) {
		st, err := model(1e5, 2000)(ctx, n, asked)
		st.GeneratorThrottled, st.GeneratorCores = 0.3, 0.3
		if asked > 2000 { // the quota holds it to 2,000 msg/s: the backlog is its own
			st.E2EP99, st.Summary.Latency.E2E.P99 = 4000, 4000
		}
		return st, err
	}
	m := Machine{Cores: 2, GeneratorCores: 0.3, GeneratorCoresWhy: "the CPU quota of its cgroup /k: 0.3 of a core"}
	r, err := Run(context.Background(), Params{Start: 100}, objective(t, "e2e_p99<1000"), m, throttled, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Limit != 1600 || !r.GeneratorLimited || r.Saturated.Rule != RuleGeneratorQuota || !strings.Contains(r.Saturated.Why, "0.3 of a core") {
		t.Fatalf("limit %g, generator limited %v, saturated %+v, stopped %q", r.Limit, r.GeneratorLimited, r.Saturated, r.Stopped)
	}
	if !strings.HasPrefix(r.Stopped, "the generator could not put out the load: ") {
		t.Fatalf("stopped %q", r.Stopped)
	}
	if line := ResultLine(r); !strings.Contains(line, "; the server held 1,600 msg/s within e2e_p99<1000") {
		t.Fatalf("%s", line)
	}
}

// The chart's line follows the load put out (a step that asked more and
// put out less does not turn it back), a load only disturbed runs met is
// drawn open, two steps over the top side by side are written a row
// apart, and a users search is drawn on its own objective: login p99.
func TestKneeChartInLoadOrderAndOnItsOwnObjective(t *testing.T) {
	r := Result{Params: Params{Dimension: "rate"}, Objective: "e2e_p99<1000", LimitStep: 1, KneeStep: 3, Steps: []Step{
		{N: 1, Asked: 200, Achieved: 200, Expected: 10, E2EP99: 50, Held: true},
		{N: 2, Asked: 400, Achieved: 329, Expected: 10, E2EP99: 9000},
		{N: 3, Asked: 300, Achieved: 307, Expected: 10, E2EP99: 8000},
		{N: 4, Asked: 350, Achieved: 250, Expected: 10, E2EP99: 700, Disturbed: "busy"}}}
	page := kneeChart(r)
	line := regexp.MustCompile(`<polyline[^>]*points="([^"]*)"><title>e2e p99`).FindStringSubmatch(page)
	if line == nil || strings.Count(line[1], " ") != 2 {
		t.Fatalf("the e2e p99 line: %v\n%s", line, page)
	}
	last := -1.0
	for _, pt := range strings.Fields(line[1]) {
		x, _ := strconv.ParseFloat(strings.Split(pt, ",")[0], 64)
		if x < last {
			t.Fatalf("the line doubles back: %s", line[1])
		}
		last = x
	}
	if !strings.Contains(page, `<circle cx="`) || !regexp.MustCompile(`r="4" fill="#fff" stroke="#c0392b"[^>]*><title>step 4 \(not the server's`).MatchString(page) {
		t.Fatalf("the disturbed step is not drawn open:\n%s", page)
	}
	ys := regexp.MustCompile(`y="([0-9.]+)" text-anchor="[a-z]+" class="label" data-clipped`).FindAllStringSubmatch(page, -1)
	if len(ys) != 2 || ys[0][1] == ys[1][1] {
		t.Fatalf("clipped labels %v:\n%s", ys, page)
	}
	users := Result{Params: Params{Dimension: "users"}, Objective: "never_online==0,login_p99<10000", Steps: []Step{
		{N: 1, Asked: 1000, Online: 1000, LoginP50: 40, LoginP99: 300, Held: true},
		{N: 2, Asked: 2000, Online: 1900, LoginP50: 900, LoginP99: 12000}}}
	page = kneeChart(users)
	for _, want := range []string{`data-measure="login"`, `data-line="login_p99"`, `>login p99</text>`, `objective 10,000 ms`, `users online 1,000, login p99 300 ms`} {
		if !strings.Contains(page, want) {
			t.Fatalf("%s not in the users search's chart:\n%s", want, page)
		}
	}
}

// A search over a scenario with closed-loop classes counts the open
// classes' messages as what a step put out, and says what share the
// closed ones took and what the limit is the limit of.
func TestClosedLoopClassesAreNamed(t *testing.T) {
	var s summary.Summary
	s.Messages.Sent, s.Messages.FirstSendMs, s.Messages.LastSendMs = 3120, 0, 10_000
	s.Messages.ByClass = []summary.ClassSends{{Class: 1, Open: true, Sent: 520}, {Class: 2, Open: false, Sent: 2600}}
	st := stepOf(1, 50, "r", s, "rate")
	if st.Achieved != 52 || st.Closed != 260 {
		t.Fatalf("achieved %g, closed %g", st.Achieved, st.Closed)
	}
	st.Held = true
	if line := StepLine(st, "rate"); !strings.Contains(line, "52 sent (and 260 msg/s by the closed-loop classes, 83 % of all)") {
		t.Fatalf("%s", line)
	}
	r := Result{Params: Params{Dimension: "rate"}, Objective: "e2e_p99<1000", Limit: 50, LimitStep: 1, Steps: []Step{st}}
	if line := ResultLine(r); !strings.Contains(line, "the limit is the open classes' rate with the closed-loop classes beside it, not the server's whole: they sent 260 msg/s more at it (83 % of all)") {
		t.Fatalf("%s", line)
	}
}
