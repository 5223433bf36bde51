package runner_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/load/runner"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
)

// clean-target removes a previous run's leftovers, found by its setup
// record, from a target named by the environment as `imbench run` names
// it; it lists the runs that may have left something until then, and
// fails when the target refuses it.
func TestCleanTargetRemovesAKeptRunsLeftovers(t *testing.T) {
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	results := t.TempDir()
	script := filepath.Join(t.TempDir(), "kept.js")
	if err := os.WriteFile(script, []byte(`import im from 'imbench';
export const plan = im.workload({ name: 'wildfire/kept', bodySize: 36, classes: [
  { kind: 'groups', groups: 2, members: 3, allOnline: true, rate: 50, messages: 1 },
]});
`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"IM_PROTOCOL": "wildfire", "IM_ENDPOINTS": "wildfire_admin,wildfire_mqtt",
		"IM_WILDFIRE_ADMIN_URL": tg.AdminURL, "IM_WILDFIRE_MQTT_URL": tg.MQTTAddr, "IM_SECRET": tg.Secret,
		"IM_RESULTS_DIR": results, "IM_PROGRESS": "off", "IM_DRAIN_QUIET": "200ms", "IM_KEEP": "1"}
	var out bytes.Buffer
	pr, err := runner.Prepare(context.Background(), runner.Config{Script: script, Env: env, RunID: "kept_run", NoThresholds: true, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	if code := pr.Execute(context.Background()); code != runner.ExitOK {
		t.Fatalf("the run exited %d\n%s", code, out.String())
	}
	if users, groups, _ := tg.Core.Census("kept_run_"); users != 6 || groups != 2 {
		t.Fatalf("the kept run left %d users %d groups", users, groups)
	}
	if err := os.Symlink("kept_run", filepath.Join(results, "latest")); err != nil {
		t.Fatal(err)
	}
	left, err := runner.Leftovers(results)
	if err != nil || len(left) != 1 || !strings.HasPrefix(left[0], "kept_run (reference, wildfire, set up ") {
		t.Fatalf("leftovers %q %v", left, err)
	}

	dir := filepath.Join(results, "kept_run")
	profiles := map[string]profile.Profile{} // the run's target has no profile here: its recorded endpoints serve
	wrong := func(k string) string {
		if k == "IM_SECRET" {
			return "not-" + tg.Secret
		}
		return ""
	}
	if code, err := runner.CleanTarget(context.Background(), dir, "", false, profiles, wrong, &out, &out); code == 0 && err == nil {
		t.Fatal("a refused clean-up succeeded")
	}
	out.Reset()
	getenv := func(k string) string { return map[string]string{"IM_SECRET": tg.Secret}[k] }
	code, err := runner.CleanTarget(context.Background(), dir, "", false, profiles, getenv, &out, &out)
	if code != 0 || err != nil {
		t.Fatalf("clean-target: exit %d %v\n%s", code, err, out.String())
	}
	if users, groups, rooms := tg.Core.Census("kept_run_"); users+groups+rooms != 0 {
		t.Fatalf("after clean-target: %d users %d groups %d rooms\n%s", users, groups, rooms, out.String())
	}
	if !strings.Contains(out.String(), "imbench: removed from reference: 6 users, 2 groups, 0 chatrooms") {
		t.Fatalf("clean-target printed:\n%s", out.String())
	}
	if left, _ := runner.Leftovers(results); len(left) != 0 {
		t.Fatalf("still listed after clean-target: %q", left)
	}
}

// Ids a scenario named with its own prefix may be another run's: the run
// keeps them, and clean-target removes them only with -force.
func TestScenarioPrefixedUsersAreRemovedOnlyWithForce(t *testing.T) {
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	results := t.TempDir()
	script := filepath.Join(t.TempDir(), "named.js")
	if err := os.WriteFile(script, []byte(`import im from 'imbench';
export const plan = im.workload({ name: 'wildfire/named', prefix: 'shared_', bodySize: 36, classes: [
  { kind: 'groups', groups: 1, members: 3, allOnline: true, rate: 50, messages: 1 },
]});
`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"IM_PROTOCOL": "wildfire", "IM_ENDPOINTS": "wildfire_admin,wildfire_mqtt",
		"IM_WILDFIRE_ADMIN_URL": tg.AdminURL, "IM_WILDFIRE_MQTT_URL": tg.MQTTAddr, "IM_SECRET": tg.Secret,
		"IM_RESULTS_DIR": results, "IM_PROGRESS": "off", "IM_DRAIN_QUIET": "200ms"}
	var out bytes.Buffer
	pr, err := runner.Prepare(context.Background(), runner.Config{Script: script, Env: env, RunID: "named_run", NoThresholds: true, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	if code := pr.Execute(context.Background()); code != runner.ExitOK {
		t.Fatalf("the run exited %d\n%s", code, out.String())
	}
	if users, _, _ := tg.Core.Census("shared_"); users != 3 || !strings.Contains(out.String(), `prefix "shared_", not the run's`) {
		t.Fatalf("the run left %d of its 3 users; it said:\n%s", users, out.String())
	}
	dir := filepath.Join(results, "named_run")
	getenv := func(k string) string { return map[string]string{"IM_SECRET": tg.Secret}[k] }
	if _, err := runner.CleanTarget(context.Background(), dir, "", false, map[string]profile.Profile{}, getenv, &out, &out); err == nil ||
		!strings.Contains(err.Error(), "-force") {
		t.Fatalf("clean-target without -force: %v", err)
	}
	if code, err := runner.CleanTarget(context.Background(), dir, "", true, map[string]profile.Profile{}, getenv, &out, &out); code != 0 || err != nil {
		t.Fatalf("clean-target -force: exit %d %v\n%s", code, err, out.String())
	}
	if users, groups, _ := tg.Core.Census("shared_"); users+groups != 0 {
		t.Fatalf("after -force: %d users %d groups", users, groups)
	}
}
