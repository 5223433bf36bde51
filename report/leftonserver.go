package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/runner"
)

// leftOnServer is what the runs in dirs (the fixed load's, each limit
// step's) left on their server: what their clean-ups asked to remove and
// the server's lookups still found, what the server keeps by design (each
// line once, beside how much the runs made), and the messages they stored
// on a server that keeps them.
func leftOnServer(dirs []string, keepsMessages bool) []string {
	var left, failed int
	var made struct{ users, groups, rooms int }
	var stored int64
	var kept []string
	seen := map[string]bool{}
	for _, dir := range dirs {
		if rec, err := runner.ReadTeardown(dir); err == nil {
			r := rec.Removed
			left += r.Left()
			failed += len(rec.Errors)
			for _, k := range r.Kept {
				if !seen[k] {
					seen[k] = true
					kept = append(kept, k)
				}
			}
		}
		if rec, err := runner.ReadSetup(dir); err == nil && rec.Created != nil {
			made.users += rec.Created.Users
			made.groups += len(rec.Created.Groups)
			made.rooms += len(rec.Created.Rooms)
		}
		if s, err := summary.Load(filepath.Join(dir, "summary.json")); err == nil {
			stored += s.Messages.Acked
		}
	}
	var out []string
	if left > 0 {
		out = append(out, fmt.Sprintf("%s its clean-ups asked to remove and its lookups still found", plural(int64(left), "thing")))
	}
	if failed > 0 {
		out = append(out, fmt.Sprintf("%s failed (the runs' teardown.json)", plural(int64(failed), "removal")))
	}
	if len(kept) > 0 {
		out = append(out, fmt.Sprintf("what it keeps of the %s, %s and %s its runs made: %s", plural(int64(made.users), "user"), plural(int64(made.groups), "group"),
			plural(int64(made.rooms), "chatroom"), strings.Join(kept, "; ")))
	}
	if keepsMessages && stored > 0 {
		out = append(out, fmt.Sprintf("the %s messages its runs stored (acknowledged): no clean-up removes a server's history", summary.Grouped(stored)))
	}
	return out
}
