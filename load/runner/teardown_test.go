package runner_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/runner"
	_ "github.com/imbench/imbench/load/wildfire"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
)

const teardownScenario = `import im from 'imbench';
export const plan = im.workload({ name: 'wildfire/teardown', bodySize: 36, classes: [
  { kind: 'groups', groups: 2, members: 3, allOnline: true, rate: 50, messages: 2 },
  { kind: 'chatroom', members: 3, rate: 50, messages: 2 },
]});
`

// runAgainst runs the teardown scenario as run id against tg, with extra
// environment, and returns what it printed.
func runAgainst(t *testing.T, tg *reftest.WFTarget, results, id string, extra map[string]string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "teardown.js")
	if err := os.WriteFile(script, []byte(teardownScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"IM_PROTOCOL": "wildfire", "IM_ENDPOINTS": "wildfire_admin,wildfire_mqtt",
		"IM_WILDFIRE_ADMIN_URL": tg.AdminURL, "IM_WILDFIRE_MQTT_URL": tg.MQTTAddr, "IM_SECRET": tg.Secret,
		"IM_RESULTS_DIR": results, "IM_PROGRESS": "off", "IM_DRAIN_QUIET": "200ms"}
	for k, v := range extra {
		env[k] = v
	}
	var out bytes.Buffer
	ctx := context.Background()
	pr, err := runner.Prepare(ctx, runner.Config{Script: script, Env: env, RunID: id, NoThresholds: true, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	if code := pr.Execute(ctx); code != runner.ExitOK {
		t.Fatalf("run %s exited %d\n%s", id, code, out.String())
	}
	return out.String()
}

// A run removes its users, groups and chatrooms at its end and says so;
// IM_KEEP=1 keeps them, and its setup record is what removes them later
// (clean-target), as it would a killed run's.
func TestRunEndsWithTheTargetAsFound(t *testing.T) {
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	results := t.TempDir()

	out := runAgainst(t, tg, results, "gone", nil)
	if users, groups, rooms := tg.Core.Census("gone_"); users+groups+rooms != 0 {
		t.Fatalf("after the run: %d users %d groups %d rooms\n%s", users, groups, rooms, out)
	}
	if !strings.Contains(out, "imbench: removed from reference: 9 users, 2 groups, 1 chatroom") {
		t.Fatalf("the run did not say what it removed:\n%s", out)
	}
	t.Logf("the run printed:\n%s", out)
	if _, err := os.Stat(filepath.Join(results, "gone", runner.TeardownFile)); err != nil {
		t.Fatal(err)
	}

	out = runAgainst(t, tg, results, "kept", map[string]string{"IM_KEEP": "1"})
	if users, groups, rooms := tg.Core.Census("kept_"); users != 9 || groups != 2 || rooms != 1 {
		t.Fatalf("IM_KEEP=1 left %d users %d groups %d rooms\n%s", users, groups, rooms, out)
	}
	if !strings.Contains(out, "IM_KEEP=1") || !strings.Contains(out, "make clean-target RUN="+filepath.Join(results, "kept")+" removes them") {
		t.Fatalf("the kept run did not say how to remove what it kept:\n%s", out)
	}
	dir := filepath.Join(results, "kept")
	rec, err := runner.ReadSetup(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec.RunID != "kept" || rec.System != "wildfire" || rec.Created == nil || rec.Created.Users != 9 || rec.Endpoints["wildfire_admin"] != tg.AdminURL {
		t.Fatalf("setup record %+v", rec)
	}
	tgt, err := runner.TargetFromEnv(map[string]string{"IM_PROTOCOL": rec.System, "IM_ENDPOINTS": "wildfire_admin,wildfire_mqtt",
		"IM_WILDFIRE_ADMIN_URL": rec.Endpoints["wildfire_admin"], "IM_WILDFIRE_MQTT_URL": rec.Endpoints["wildfire_mqtt"], "IM_SECRET": tg.Secret}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, proto, err := tgt.Open()
	if err != nil {
		t.Fatal(err)
	}
	td, err := runner.Teardown(context.Background(), proto.(engine.Remover), rec.Target, *rec.Created, dir)
	if err != nil || len(td.Errors) > 0 || td.Removed.Users != 9 {
		t.Fatalf("teardown from the record: %+v %v", td, err)
	}
	if users, groups, rooms := tg.Core.Census("kept_"); users+groups+rooms != 0 {
		t.Fatalf("after the teardown from the record: %d users %d groups %d rooms", users, groups, rooms)
	}
}
