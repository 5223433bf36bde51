package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/summary"
)

const scenarioDir = "../scenarios"

// scenarioFiles are every <system>/<test>.js under load/scenarios.
func scenarioFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*", "*.js"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if filepath.Base(filepath.Dir(f)) != "lib" {
			out = append(out, f)
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d scenarios under %s", len(out), scenarioDir)
	}
	return out
}

// Every scenario evaluates at its default size: a plan, options the runner
// accepts (thresholds included) and a target read from the environment.
func TestEveryScenarioEvaluates(t *testing.T) {
	for _, f := range scenarioFiles(t) {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(f, scenarioDir+"/"), ".js"), func(t *testing.T) {
			sc, err := Load(f, map[string]string{"IM_SECRET": "x"}, "r1")
			if err != nil {
				t.Fatal(err)
			}
			if sc.Plan == nil || sc.Plan.Users == 0 || sc.Plan.p.RunID != "r1" {
				t.Fatalf("plan %+v", sc.Plan)
			}
			if _, err := TargetFromEnv(map[string]string{"IM_SECRET": "x"}, sc.Options.ProtocolOptions); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// At IM_SCALE=1 every catalog scenario plans its seed's arithmetic
// (lib/catalog.check.js states each seed's figures).
func TestCatalogPlansTheSeedsArithmetic(t *testing.T) {
	if testing.Short() {
		t.Skip("builds seed-size plans")
	}
	v, err := Export(filepath.Join(scenarioDir, "lib", "catalog.check.js"), map[string]string{"IM_SCALE": "1", "IM_SECRET": "x"}, "r1", "results")
	if err != nil {
		t.Fatal(err)
	}
	results, ok := v.([]any)
	if !ok || len(results) < 20 {
		t.Fatalf("results %T %d", v, len(results))
	}
	for _, r := range results {
		m := r.(map[string]any)
		if m["ok"] != true {
			t.Errorf("does not hold: %s", m["name"])
		}
	}
}

// A scenario that imports anything but imbench and its own files, throws,
// or exports no plan is refused with one line naming the file.
func TestScenarioErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"k6.js":      "import http from 'k6/http';\nexport const plan = 1;\n",
		"throws.js":  "throw new Error('no such luck');\n",
		"noplan.js":  "export const options = {};\n",
		"badopt.js":  "import im from 'imbench';\nexport const plan = im.workload({name: 'x', classes: [{kind: 'online', users: 2}]});\nexport const options = { treshold: {} };\n",
		"badexpr.js": "import im from 'imbench';\nexport const plan = im.workload({name: 'x', classes: [{kind: 'online', users: 2}]});\nexport const options = { thresholds: { lost: ['count=0'] } };\n",
		"badplan.js": "import im from 'imbench';\nexport const plan = im.workload({name: 'x', clases: []});\n",
	} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(f, nil, "r1")
		if err == nil || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Every catalog scenario that sends fails a run whose sends went
// unanswered: the server did not answer in time, whatever arrived.
func TestEverySendingScenarioFailsOnUnansweredSends(t *testing.T) {
	for _, f := range scenarioFiles(t) {
		sc, err := Load(f, map[string]string{"IM_SECRET": "x"}, "r1")
		if err != nil {
			t.Fatal(err)
		}
		if sc.Plan.p.Planned() == 0 {
			continue // a hold sends nothing
		}
		var s summary.Summary
		s.Messages.Sent, s.Messages.Acked, s.Messages.Unanswered = 100, 99, 1
		rs, err := CheckThresholds(sc.Options.Thresholds, &s)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		crossed := false
		for _, r := range rs {
			crossed = crossed || (!r.Passed && r.Metric == "unanswered")
		}
		if !crossed {
			t.Errorf("%s passes a run with an unanswered send (thresholds %v)", f, sc.Options.Thresholds)
		}
	}
}
