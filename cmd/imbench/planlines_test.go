package main

import (
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/testmachine"
)

// Before any load, a run says what each class will send: 27 msg/s of 600
// pairs for 20 s are 540 messages, each pair sending less than one a
// second, none dropped to rounding; -check-only says it too.
func TestARunSaysItsPlanBeforeLoad(t *testing.T) {
	testmachine.Shared(t)
	tg := startTarget(t)
	env := append(tg.env(), "IMBENCH_NO_OBSERVE=1", "LIMIT_PAIRS=600", "IM_RATE=27", "IM_DURATION=20s")
	r := imbench(t, env, "run", "-check-only", "-scenario", mustAbs(t, "testdata/limit-pairs.js"), "-protocol", "wukongim", "-results", t.TempDir())
	want := "imbench: plan: class 1, pairs: 600 conversations, 540 messages at 27 msg/s (0.045 a second each), due from 0 s to 19.963 s\n"
	if r.code != 0 || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "the target answer as they should") {
		t.Fatalf("exit %d, want %q in\n%s\n%s", r.code, want, r.stdout, r.stderr)
	}
	if strings.Index(r.stdout, "imbench: plan:") > strings.Index(r.stdout, "answer as they should") {
		t.Fatalf("the plan said after the checks:\n%s", r.stdout)
	}
}
