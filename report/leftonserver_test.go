package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/runner"
)

// A server that keeps what its clean-up cannot remove is not "left:
// nothing": what it keeps is said once, beside what the runs made, with
// what its lookups still found and the messages the runs stored.
func TestLeftOnTheServerIsWhatItKeeps(t *testing.T) {
	var dirs []string
	for i := range 2 {
		dir := t.TempDir()
		dirs = append(dirs, dir)
		write := func(name string, v any) {
			raw, _ := json.Marshal(v)
			if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(runner.TeardownFile, runner.TeardownRecord{Removed: engine.Removal{Users: 0, Groups: 3, UsersLeft: i * 5,
			Kept: []string{"OpenIM v3.8 has no route that deletes a user: the run's users, their tokens and friendships stay"}}})
		write(runner.SetupFile, runner.SetupRecord{Created: &engine.Created{Users: 600, Groups: []string{"g1", "g2", "g3"}}})
		var s summary.Summary
		s.Messages.Acked = 7000
		write("summary.json", s)
	}
	got := strings.Join(leftOnServer(dirs, true), " | ")
	want := "5 things its clean-ups asked to remove and its lookups still found | " +
		"what it keeps of the 1,200 users, 6 groups and 0 chatrooms its runs made: OpenIM v3.8 has no route that deletes a user: the run's users, their tokens and friendships stay | " +
		"the 14,000 messages its runs stored (acknowledged): no clean-up removes a server's history"
	if got != want {
		t.Fatalf("left\n%s\nwant\n%s", got, want)
	}
	if got := leftOnServer(dirs[:1], false); len(got) != 1 || !strings.HasPrefix(got[0], "what it keeps of the 600 users") {
		t.Fatalf("the reference target's: %q", got)
	}
}
