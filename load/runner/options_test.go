package runner

import (
	"strings"
	"testing"
)

func TestLoginParallelFromEnv(t *testing.T) {
	o, err := RunOptionsFromEnv(map[string]string{"IM_LOGIN_PARALLEL": "3"}, ScenarioOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := o.engineOptions(); e.LoginParallel != 3 {
		t.Fatalf("IM_LOGIN_PARALLEL=3 gave %d logins in flight", e.LoginParallel)
	}
	o, _ = RunOptionsFromEnv(map[string]string{}, ScenarioOptions{})
	if e, _ := o.engineOptions(); e.LoginParallel != 64 {
		t.Fatalf("unset gave %d logins in flight, want the engine's 64", e.LoginParallel)
	}
	for _, bad := range []string{"0", "-1", "many"} {
		if _, err := RunOptionsFromEnv(map[string]string{"IM_LOGIN_PARALLEL": bad}, ScenarioOptions{}); err == nil || !strings.Contains(err.Error(), "IM_LOGIN_PARALLEL") {
			t.Fatalf("IM_LOGIN_PARALLEL=%s: %v", bad, err)
		}
	}
}

// Every bad variable is named, in one line, not only the first.
func TestEveryBadVariableIsNamed(t *testing.T) {
	_, err := RunOptionsFromEnv(map[string]string{"IM_VUS": "x", "IM_KEEP": "yes", "IM_DRAIN_SYNC": "maybe"}, ScenarioOptions{})
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("%v", err)
	}
	for _, want := range []string{`IM_VUS must be a positive whole number, got "x"`, `IM_KEEP must be 1`, `IM_DRAIN_SYNC must be on or off, got "maybe"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}
