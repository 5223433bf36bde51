package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/summary"
)

// A scenario outside this repository imports the environment's knobs by
// name, and they apply: IM_SCALE scales its workload.
func TestAScenarioAnywhereImportsTheKnobs(t *testing.T) {
	f := filepath.Join(t.TempDir(), "mine.js")
	os.WriteFile(f, []byte(`import im from 'imbench';
import { planKnobs } from 'imbench/env';
import { integrity } from 'imbench/scenario';
export const options = { thresholds: integrity };
export const plan = im.workload({ name: 'mine', classes: [{ kind: 'pairs', pairs: 10, rate: 1, messages: 2 }], ...planKnobs(__ENV) });
`), 0o644)
	sc, err := Load(f, map[string]string{"IM_SCALE": "0.5"}, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Plan.p.Planned() != 5 { // 5 pairs, 1 message each
		t.Fatalf("planned %d at scale 0.5", sc.Plan.p.Planned())
	}
	if len(sc.Options.Thresholds["lost"]) != 1 {
		t.Fatalf("thresholds %v", sc.Options.Thresholds)
	}
	os.WriteFile(f, []byte(`import x from 'lodash';`), 0o644)
	if _, err := Load(f, nil, "r1"); err == nil || !strings.Contains(err.Error(), "imbench/env") {
		t.Fatalf("another module: %v", err)
	}
}

// A knob given to a scenario that never reads it is refused before load,
// in one line that says how to take it.
func TestAKnobTheScenarioIgnoresIsRefused(t *testing.T) {
	f := filepath.Join(t.TempDir(), "fixed.js")
	os.WriteFile(f, []byte(`import im from 'imbench';
export const plan = im.workload({ name: 'fixed', runId: __ENV.IM_RUN_ID, classes: [{ kind: 'pairs', pairs: 2, rate: 1, messages: 2 }] });
`), 0o644)
	if _, err := Load(f, map[string]string{"IM_RUN_ID": "r1"}, "r1"); err != nil {
		t.Fatal(err)
	}
	_, err := Load(f, map[string]string{"IM_SCALE": "2", "IM_DURATION": "10s"}, "r1")
	if err == nil || !strings.Contains(err.Error(), "does not read SCALE, DURATION") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("ignored knobs: %v", err)
	}
}

// An error while the scenario is evaluated names the file, line and
// column of the scenario's own code, in its file or one it imports, and
// a class the workload refuses names where the call is.
func TestAnErrorAtEvaluationSaysWhere(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "sizes.js"), []byte("export function sizes(env) {\n  return env.NOPE.pairs;\n}\n"), 0o644)
	f := filepath.Join(dir, "mine.js")
	for src, want := range map[string]string{
		"import im from 'imbench';\n\nconst s = undefined;\nexport const plan = im.workload({ name: 'm', classes: [{ kind: 'pairs', pairs: s.pairs, rate: 1, messages: 1 }] });\n":                   f + ":4:",
		"import im from 'imbench';\nimport { sizes } from './sizes.js';\nexport const plan = im.workload({ name: 'm', classes: [{ kind: 'pairs', pairs: sizes(__ENV), rate: 1, messages: 1 }] });\n": "sizes.js:2:",
		"import im from 'imbench';\nexport const plan = im.workload({ name: 'm',\n  classes: [{ kind: 'pairs', pairs: 2, rate: 1, ratePerMinute: 3, messages: 1 }] });\n":                            f + ":2:",
	} {
		os.WriteFile(f, []byte(src), 0o644)
		_, err := Load(f, nil, "r1")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want it at %s", src, err, want)
		}
	}
}

// Evaluating a scenario is bounded: a loop that never ends is stopped at
// IM_EVAL_TIMEOUT, in one line that says so, and a bad limit is named.
func TestEvaluationIsBoundedInTime(t *testing.T) {
	f := filepath.Join(t.TempDir(), "spin.js")
	os.WriteFile(f, []byte("import im from 'imbench';\nwhile (true) {}\nexport const plan = im.workload({ name: 'spin', classes: [] });\n"), 0o644)
	_, err := Load(f, map[string]string{"IM_EVAL_TIMEOUT": "300ms"}, "r1")
	if err == nil || !strings.Contains(err.Error(), "took longer than 300ms") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a loop that never ends: %v", err)
	}
	if _, err := Load(f, map[string]string{"IM_EVAL_TIMEOUT": "soon"}, "r1"); err == nil || !strings.Contains(err.Error(), `IM_EVAL_TIMEOUT "soon"`) {
		t.Fatalf("a bad limit: %v", err)
	}
}

// A handleSummary that throws is named, with where in the file, and
// exits apart from a failed run: summary.json was written before it ran.
func TestAThrowingHandleSummaryIsNamed(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "hs.js")
	os.WriteFile(f, []byte(`import im from 'imbench';
export const plan = im.workload({ name: 'hs', classes: [{ kind: 'pairs', pairs: 2, rate: 1, messages: 1 }] });
export function handleSummary(data) {
  return { stdout: data.nothing.here };
}
`), 0o644)
	sc, err := Load(f, nil, "r1")
	if err != nil {
		t.Fatal(err)
	}
	var out, errs strings.Builder
	if code := Finish(sc, summary.Summary{}, dir, true, &out, &errs); code != ExitHandleSummary {
		t.Fatalf("exit %d, want %d", code, ExitHandleSummary)
	}
	if want := "handleSummary threw: " + f + ":4:"; !strings.Contains(errs.String(), want) {
		t.Fatalf("%q does not say %q", errs.String(), want)
	}
}

// A group's from keeps the order the file writes: the teacher drawn first
// owns the group and is its one sender, whatever the keys' alphabet.
func TestAGroupDrawsInTheFilesOrder(t *testing.T) {
	f := filepath.Join(t.TempDir(), "school.js")
	os.WriteFile(f, []byte(`import im from 'imbench';
export const plan = im.workload({ name: 'school',
  populations: { students: { users: 20 }, teachers: { users: 2 } },
  classes: [{ kind: 'groups', groups: 2, from: { teachers: 1, students: 10 }, rate: 1, messages: 1 }] });
`), 0o644)
	sc, err := Load(f, nil, "r1")
	if err != nil {
		t.Fatal(err)
	}
	p := sc.Plan.p
	for i, g := range p.Groups {
		if g.Owner != uint32(20+i) || len(g.Members) != 11 {
			t.Fatalf("group %d: owner %d of %v, want teacher %d", i, g.Owner, g.Members, 20+i)
		}
	}
	for m := range p.Schedule() {
		if m.Sender < 20 {
			t.Fatalf("student %d writes: the teacher is the group's sender", m.Sender)
		}
	}
}
