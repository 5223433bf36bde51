package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/imbench/imbench/load/engine"
)

// SetupRecord is setup.json: where a run set its target up and what it
// makes there, by id. The runner writes it before setup, so a run killed
// at any point leaves it for `imbench clean-target`; a setup-only process
// writes it again after, with the counts its split run's merge reads.
type SetupRecord struct {
	engine.SetupReport
	RunID     string            `json:"run_id"`
	Target    string            `json:"target"`
	System    string            `json:"system"`    // the protocol the run spoke
	Endpoints map[string]string `json:"endpoints"` // as the run reached them, without credentials
	Created   *engine.Created   `json:"created"`   // nil in the record of an imbench before clean-target
}

func (r *Run) setupRecord() SetupRecord {
	c := engine.CreatedBy(r.Plan)
	eps := make(map[string]string, len(r.Target.Endpoints))
	for name, raw := range r.Target.Endpoints {
		eps[name] = WithoutUserinfo(raw)
	}
	return SetupRecord{SetupReport: r.Setup, RunID: r.ID, Target: r.Target.Name, System: r.Target.System, Endpoints: eps, Created: &c}
}

// WithoutUserinfo drops any user:password@ of each comma-separated URL.
func WithoutUserinfo(raw string) string {
	parts := strings.Split(raw, ",")
	for i, p := range parts {
		if u, err := url.Parse(strings.TrimSpace(p)); err == nil && u.User != nil {
			u.User = nil
			parts[i] = u.String()
		}
	}
	return strings.Join(parts, ",")
}

// ReadSetup reads the setup record in a run's folder.
func ReadSetup(dir string) (SetupRecord, error) {
	var rec SetupRecord
	raw, err := os.ReadFile(filepath.Join(dir, SetupFile))
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		return rec, fmt.Errorf("%s: %w", filepath.Join(dir, SetupFile), err)
	}
	return rec, nil
}

// TeardownFile is what removing a run's users, groups and chatrooms did,
// at the run's end or by `imbench clean-target`.
const TeardownFile = "teardown.json"

// TeardownRecord is teardown.json.
type TeardownRecord struct {
	At      time.Time      `json:"at"`
	Target  string         `json:"target"`
	Removed engine.Removal `json:"removed"`
	Errors  []string       `json:"errors,omitempty"` // one line each
}

// ReadTeardown reads the teardown record in a run's folder.
func ReadTeardown(dir string) (TeardownRecord, error) {
	var rec TeardownRecord
	raw, err := os.ReadFile(filepath.Join(dir, TeardownFile))
	if err != nil {
		return rec, err
	}
	return rec, json.Unmarshal(raw, &rec)
}

// Teardown removes what a run created through rm, within a time that grows
// with how much there is, and writes teardown.json in the run's folder dir.
// The record says what went, what stays and each failure; the error is a
// failure to write it.
func Teardown(ctx context.Context, rm engine.Remover, target string, c engine.Created, dir string) (TeardownRecord, error) {
	n := c.Users + len(c.Groups) + len(c.Rooms)
	// A minute and a bit per id to ask, and a minute more for the removals
	// a server timed out to be seen gone.
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute+time.Duration(n)*10*time.Millisecond)
	defer cancel()
	removed, err := rm.Remove(ctx, c)
	rec := TeardownRecord{At: time.Now().UTC(), Target: target, Removed: removed}
	if err != nil {
		rec.Errors = strings.Split(err.Error(), "\n")
	}
	raw, _ := json.MarshalIndent(rec, "", "  ")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return rec, err
	}
	return rec, os.WriteFile(filepath.Join(dir, TeardownFile), append(raw, '\n'), 0o644)
}

// Report prints what a teardown removed and what stays on stdout, each
// failure on stderr: one line each.
func (t TeardownRecord) Report(stdout, stderr io.Writer) {
	r := t.Removed
	gone := ""
	if absent := kindsText(r.UsersAbsent, r.GroupsAbsent, r.RoomsAbsent); absent != "" {
		gone = fmt.Sprintf("; the server did not have %s (never made, or removed before)", absent)
	}
	fmt.Fprintf(stdout, "imbench: removed from %s: %s, %s, %s%s\n", t.Target, plural(r.Users, "user"), plural(r.Groups, "group"), plural(r.Rooms, "chatroom"), gone)
	for _, k := range r.Kept {
		fmt.Fprintf(stdout, "imbench: note: %s\n", k)
	}
	for _, e := range t.Errors {
		fmt.Fprintf(stderr, "imbench: clean-up: %s\n", e)
	}
}

// LeftText names what a removal left on the server, the kinds it left
// any of ("45 users, 1 group"); "" when it left nothing.
func LeftText(r engine.Removal) string { return kindsText(r.UsersLeft, r.GroupsLeft, r.RoomsLeft) }

// kindsText names the counts of users, groups and chatrooms that are not
// 0 ("45 users, 1 group"); "" when all are.
func kindsText(users, groups, rooms int) string {
	var parts []string
	for i, n := range []int{users, groups, rooms} {
		if n > 0 {
			parts = append(parts, plural(n, []string{"user", "group", "chatroom"}[i]))
		}
	}
	return strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// teardown ends a run that set its target up (Execute defers it, so it
// follows the results): it removes what the run created, unless IM_KEEP=1
// keeps it, the run was interrupted, or the process only set up a split
// run. What it prints never changes the run's exit code.
func (r *Run) teardown(ctx context.Context, stdout, stderr io.Writer) {
	run := r.ID
	if filepath.Clean(r.Opts.ResultsDir) != "results" {
		run = r.resultDir() // clean-target takes a run's folder as well as its id
	}
	later := fmt.Sprintf("make clean-target RUN=%s removes them", run)
	switch {
	case r.parentCleans:
		return
	case r.setupOnly:
		fmt.Fprintf(stdout, "imbench: a split run leaves its users and groups on %s: once it has ended, %s\n", r.Target.Name, later)
		return
	case r.Opts.Keep:
		fmt.Fprintf(stdout, "imbench: IM_KEEP=1: the run's users and groups stay on %s; %s\n", r.Target.Name, later)
		return
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "imbench: interrupted: the run's users and groups stay on %s; %s\n", r.Target.Name, later)
		return
	case !engine.CreatedBy(r.Plan).OwnedBy(r.ID):
		fmt.Fprintf(stdout, "imbench: the scenario names its users with the prefix %q, not the run's: they stay on %s; "+
			"imbench clean-target -run %s -force removes them\n", r.Plan.Prefix, r.Target.Name, run)
		return
	}
	rm, ok := r.proto.(engine.Remover)
	if !ok {
		fmt.Fprintf(stdout, "imbench: %s cannot remove what a run creates: the run's users and groups stay on %s\n", r.Target.System, r.Target.Name)
		return
	}
	rec, err := Teardown(ctx, rm, r.Target.Name, engine.CreatedBy(r.Plan), r.resultDir())
	rec.Report(stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "imbench: clean-up:", err)
	}
	if left := rec.Removed; left.Left() > 0 {
		fmt.Fprintf(stderr, "imbench: run %s left %s, %s and %s on %s; %s\n", r.ID, plural(left.UsersLeft, "user"),
			plural(left.GroupsLeft, "group"), plural(left.RoomsLeft, "chatroom"), r.Target.Name, later)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		fmt.Fprintf(stderr, "imbench: clean-up interrupted; %s\n", later)
	}
}
