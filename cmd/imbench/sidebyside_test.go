package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/badinput"
)

// side-by-side refuses what cannot run with one line, before any server
// starts, and never overwrites an earlier measurement.
func TestSideBySideRefusesBadInput(t *testing.T) {
	results := t.TempDir()
	os.MkdirAll(filepath.Join(results, "taken"), 0o755)
	ok := []string{"-tool", "imbench=true", "-tool", "wkstress=true", "-server", "pgrep -x wukongim", "-count", "http://127.0.0.1:5300/metrics#app_recvack_packet_count_total", "-results", results}
	for _, c := range []struct {
		args []string
		want string
	}{
		{ok[2:], "needs -tool twice"},
		{append([]string{"-tool", "nocommand"}, ok...), `want name=command`},
		{append(ok, "-tool", "third=true"), "needs -tool twice"},
		{append(ok, "-count", "http://127.0.0.1:5300/metrics"), "want http://host:port/metrics#counter_name"},
		{append(ok, "-rounds", "0"), "rounds 0"},
		{append(ok, "-server-cpus", "7-2"), `CPU list "7-2"`},
		{append(ok, "-run-id", "taken"), "exists: a measurement never overwrites another"},
		{append(ok, "stray"), "unexpected arguments"},
	} {
		_, _, _, err := parseSideBySide(c.args)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", c.args, err, c.want)
		}
	}
	if _, dir, _, err := parseSideBySide(append(ok, "-run-id", "fresh")); err != nil || dir != filepath.Join(results, "fresh") {
		t.Fatalf("good input: %v %q", err, dir)
	}
}
