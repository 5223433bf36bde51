package limit

import (
	"context"
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
		return Step{N: step, Asked: asked, Achieved: sent, E2EP99: p99, Summary: s, GeneratorCores: 0.2,
			Usage: []Usage{{Component: "imbench-target", Role: "target", Processes: 1, CPUAvg: min(cpu, 100)}}}, nil
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
	if r.Limit != 500 || r.Knee != 0 || len(r.Steps) != 4 {
		t.Fatalf("limit %g knee %g steps %d", r.Limit, r.Knee, len(r.Steps))
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
	if s := saturationOf(&st, Machine{Cores: 2, GeneratorCores: 2}); s.Component != "the machine" || s.Generator {
		t.Fatalf("saturation %+v", s)
	}
	st.Usage[0].CPUAvg = 150
	if s := saturationOf(&st, Machine{Cores: 2, GeneratorCores: 2}); s.Component != "imbench-target" {
		t.Fatalf("saturation %+v", s)
	}
}
