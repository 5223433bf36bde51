package comparison

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/limit"
)

// fakeRunner stands for the runs and searches: each run writes a summary
// of the server's capacity, each search a limit.json at it.
type fakeRunner struct {
	results   string
	calls     []string
	refuse    string         // a server whose check fails
	noSummary string         // a server whose run writes none
	exits     map[string]int // a server's run's exit code
}

func (f *fakeRunner) Check(s Server, reach bool) error {
	if !reach {
		f.calls = append(f.calls, "settings "+s.Name)
		return nil
	}
	f.calls = append(f.calls, "check "+s.Name)
	if s.Name == f.refuse {
		return errors.New("target reference: wrong secret")
	}
	return nil
}

func (f *fakeRunner) Run(s Server, runID string) (int, string) {
	f.calls = append(f.calls, "run "+runID)
	if s.Name == f.noSummary {
		return 1, ""
	}
	var sum summary.Summary
	sum.RunID, sum.Target = runID, s.Target
	sum.Messages.Sent, sum.Messages.Acked = 100, 100
	sum.Deliveries.Expected, sum.Deliveries.Received = 100, 100
	raw, _ := json.Marshal(sum)
	os.MkdirAll(filepath.Join(f.results, runID), 0o755)
	os.WriteFile(filepath.Join(f.results, runID, "summary.json"), raw, 0o644)
	return f.exits[s.Name], "passed"
}

func (f *fakeRunner) Warm(s Server, runID string) int {
	f.calls = append(f.calls, "warm "+runID)
	return 0
}

func (f *fakeRunner) Limit(s Server, searchID string) int {
	f.calls = append(f.calls, "limit "+searchID)
	capacity := float64(100 * len(s.Name))
	res := limit.Result{SearchID: searchID, Target: s.Target, Objective: "e2e_p99<1000", Limit: capacity, LimitStep: 1,
		Params: limit.Params{Dimension: "rate", Start: capacity, Factor: 2, Resolution: 0.05},
		Steps:  []limit.Step{{N: 1, Asked: capacity, Held: true, E2EP99: 10}}}
	limit.Write(filepath.Join(f.results, searchID), res)
	return 0
}

func comparison(t *testing.T, f *fakeRunner, servers ...Server) (*Comparison, *bytes.Buffer) {
	var out bytes.Buffer
	f.results = t.TempDir()
	return &Comparison{ID: "cmp", Scenario: "pairs", Load: "50 msg/s for 5s", Objective: "e2e_p99<1000", Servers: servers,
		ResultsDir: f.results, Runner: f, Out: &out, Errs: &out}, &out
}

// Every server is checked before any is loaded; then each runs its fixed
// load and its search in turn, its before command first; the comparison's
// columns are what their runs and searches wrote, and its exit is the
// first failed run's.
func TestAComparisonRunsEachServerInTurn(t *testing.T) {
	hooks := filepath.Join(t.TempDir(), "hooks")
	f := &fakeRunner{exits: map[string]int{"bb": 99}}
	c, out := comparison(t, f, Server{Name: "a", Target: "reference"},
		Server{Name: "bb", Target: "reference", Before: "echo $IMBENCH_SERVER >> " + hooks, Env: map[string]string{"IM_X": "1"}},
		Server{Name: "ccc", Target: "reference", Warmup: "30s"})
	got, exit, err := c.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// bb's before command may start it: its settings are checked first,
	// its target once the command ran.
	want := []string{"check a", "settings bb", "check ccc", "run cmp_1r", "limit cmp_1l", "check bb", "run cmp_2r", "limit cmp_2l", "warm cmp_3rw", "run cmp_3r", "limit cmp_3l"}
	if !slices.Equal(f.calls, want) {
		t.Fatalf("calls %q, want %q", f.calls, want)
	}
	if ran, _ := os.ReadFile(hooks); string(ran) != "bb\n" {
		t.Errorf("before commands ran: %q", ran)
	}
	if exit != 99 || len(got.Servers) != 3 {
		t.Fatalf("exit %d, %d columns", exit, len(got.Servers))
	}
	for i, col := range got.Servers {
		if col.Limit != float64(100*(i+1)) || col.RunID != fmt.Sprintf("cmp_%dr", i+1) || col.Sent != 100 {
			t.Errorf("column %d: limit %g, run %s, sent %d", i, col.Limit, col.RunID, col.Sent)
		}
	}
	for _, f := range []string{"comparison.json", "comparison.md", "comparison.html"} {
		if _, err := os.Stat(filepath.Join(c.ResultsDir, "cmp", f)); err != nil {
			t.Error(err)
		}
	}
}

// A server refused by its check stops the comparison before any load, as
// bad input; one whose before command fails, or whose run wrote no
// summary, stops it there: no later server runs, no comparison is written.
func TestAComparisonStopsAtTheFirstFailure(t *testing.T) {
	f := &fakeRunner{refuse: "b"}
	c, _ := comparison(t, f, Server{Name: "a", Target: "reference"}, Server{Name: "b", Target: "reference"})
	if _, _, err := c.Run(context.Background()); !badinput.Is(err) || !strings.Contains(err.Error(), "server b: target reference: wrong secret") ||
		!slices.Equal(f.calls, []string{"check a", "check b"}) {
		t.Fatalf("err %v, calls %q", err, f.calls)
	}
	f = &fakeRunner{}
	c, _ = comparison(t, f, Server{Name: "a", Target: "reference", Before: "echo cannot; exit 3"}, Server{Name: "b", Target: "reference"})
	_, _, err := c.Run(context.Background())
	if log, _ := os.ReadFile(filepath.Join(c.ResultsDir, "cmp", "a-before.log")); err == nil || !strings.Contains(err.Error(), "server a: the before command failed (exit status 3)") ||
		string(log) != "cannot\n" || slices.ContainsFunc(f.calls, func(s string) bool { return strings.HasPrefix(s, "run") }) {
		t.Fatalf("err %v, log %q, calls %q", err, log, f.calls)
	}
	f = &fakeRunner{refuse: "b"} // down still once its before command ran
	c, _ = comparison(t, f, Server{Name: "a", Target: "reference"}, Server{Name: "b", Target: "reference", Before: "true"})
	if _, _, err := c.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "server b, after its before command: target reference: wrong secret") ||
		!slices.Equal(f.calls, []string{"check a", "settings b", "run cmp_1r", "limit cmp_1l", "check b"}) {
		t.Fatalf("err %v, calls %q", err, f.calls)
	}
	f = &fakeRunner{noSummary: "a"}
	c, _ = comparison(t, f, Server{Name: "a", Target: "reference"}, Server{Name: "b", Target: "reference"})
	if _, _, err := c.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "server a: the fixed-load run ended (exit 1) with no summary") ||
		slices.Contains(f.calls, "run cmp_2r") {
		t.Fatalf("err %v, calls %q", err, f.calls)
	}
	if _, err := os.Stat(filepath.Join(c.ResultsDir, "cmp", "comparison.json")); err == nil {
		t.Error("a comparison of servers that did not run")
	}
}

// A servers file's mistakes are said before any server is contacted: an
// unknown target, a name reused, a setting that is not imbench's, a
// ${VAR} not set; a secret comes from the environment.
func TestServersFileMistakes(t *testing.T) {
	t.Setenv("CMP_SECRET", "s3")
	for _, c := range []struct{ file, want string }{
		{"servers:\n  - name: a\n    target: nowhere\n", `a: unknown target "nowhere"`},
		{"servers:\n  - name: a\n    target: reference\n  - name: a\n    target: reference\n", `two servers are named "a"`},
		{"servers:\n  - name: a\n    target: reference\n    env:\n      PATH: x\n", "a: env PATH: only imbench's IM_* settings"},
		{"servers:\n  - name: a\n    target: reference\n    env:\n      IM_SECRET: ${CMP_UNSET}\n", "a: env IM_SECRET takes ${CMP_UNSET}, which is not set"},
		{"servers:\n  - name: A\n    target: reference\n", `name "A" must be lower-case`},
		{"servers: []\n", "give 1 to 9 servers, not 0"},
		{"servers:\n  - name: a\n    target: reference\n    colour: red\n", "field colour not found"},
	} {
		path := filepath.Join(t.TempDir(), "servers.yaml")
		os.WriteFile(path, []byte(c.file), 0o644)
		if _, err := LoadServers(path, "../../targets"); !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q", c.file, err, c.want)
		}
	}
	path := filepath.Join(t.TempDir(), "servers.yaml")
	os.WriteFile(path, []byte("servers:\n  - name: a\n    target: reference\n    env:\n      IM_SECRET: ${CMP_SECRET}\n"), 0o644)
	ss, err := LoadServers(path, "../../targets")
	if err != nil || ss[0].Env["IM_SECRET"] != "s3" || !slices.Contains(ss[0].Environ(), "IM_SECRET=s3") {
		t.Fatalf("%v %+v", err, ss)
	}
}
