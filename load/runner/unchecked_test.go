package runner_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/internal/testmachine"
	"github.com/imbench/imbench/load/runner"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
)

// With neither the drain's last sync nor the store check, nothing can tell
// a delivery that is stored and late from one lost: what is still owed when
// the drain ends is unchecked, and the summary says why.
func TestWithoutSyncOrStoreCheckTheOwedAreUnchecked(t *testing.T) {
	testmachine.Shared(t)
	tg := reftest.StartWildfire(t, core.Faults{Delay: 3 * time.Second}, reftest.WFOptions{})
	results := t.TempDir()
	script := filepath.Join(t.TempDir(), "late.js")
	if err := os.WriteFile(script, []byte(`import im from 'imbench';
export const plan = im.workload({ name: 'wildfire/late', bodySize: 36, classes: [
  { kind: 'pairs', pairs: 4, allOnline: true, rate: 20, messages: 5 },
]});
`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"IM_PROTOCOL": "wildfire", "IM_ENDPOINTS": "wildfire_admin,wildfire_mqtt",
		"IM_WILDFIRE_ADMIN_URL": tg.AdminURL, "IM_WILDFIRE_MQTT_URL": tg.MQTTAddr, "IM_SECRET": tg.Secret,
		"IM_RESULTS_DIR": results, "IM_PROGRESS": "off", "IM_DRAIN_TIMEOUT": "1s", "IM_DRAIN_SYNC": "off", "IM_STORE_CHECK": "off"}
	var out bytes.Buffer
	pr, err := runner.Prepare(context.Background(), runner.Config{Script: script, Env: env, RunID: "late_run", NoThresholds: true, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	pr.Execute(context.Background())
	s, err := summary.Load(filepath.Join(results, "late_run", "summary.json"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	d := s.Deliveries
	if d.Expected != 20 || d.Lost != 0 || d.Unchecked == 0 || d.Unchecked != d.Expected-d.Received || d.StoreCheck == nil ||
		!strings.Contains(d.StoreCheck.Skipped, "IM_DRAIN_SYNC=off") {
		t.Fatalf("expected %d received %d lost %d unchecked %d, store check %+v\n%s", d.Expected, d.Received, d.Lost, d.Unchecked, d.StoreCheck, out.String())
	}
	if why := summary.UncheckedWhy(d.StoreCheck); why != "IM_STORE_CHECK=off, and IM_DRAIN_SYNC=off: nothing read back what the server held" {
		t.Errorf("%q", why)
	}
}
