// Package testmachine says which tests may share the machine. `make test`
// runs in two phases: the tests that measure time or latency alone, one
// package at a time (IMBENCH_TESTS=alone, selected by alonetests), then
// the rest beside each other, packages and tests in parallel
// (IMBENCH_TESTS=shared). A plain `go test` runs both kinds as before;
// `go test -short` (make test-short) leaves out both.
package testmachine

import (
	"os"
	"testing"
)

// Alone marks a test that measures time, latency or CPU: it keeps the
// machine to itself. Skipped where tests share the machine and in -short.
func Alone(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("measures time: make test runs it alone; -short leaves it out")
	}
	if os.Getenv("IMBENCH_TESTS") == "shared" {
		t.Skip("measures time: make test runs it in its alone phase")
	}
}

// Shared marks a long test (a whole run through the binary, a real server)
// that counts exactly whatever else runs: it runs in parallel with the
// package's other shared tests. Skipped in -short.
func Shared(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a whole run: make test runs it; -short leaves it out")
	}
	t.Parallel()
}
