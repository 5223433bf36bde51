package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/stack"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/runner"
)

// `imbench clean-target`: remove what a run made on its target (users,
// groups, chatrooms) when the run did not: it was killed, or kept them
// (IM_KEEP=1), or was split over processes. The run's setup record
// (results/<run>/setup.json) names the ids, the target and the protocol;
// where the target is and its secret come as for `imbench run`: the
// profile's endpoints, each IM_<NAME>_URL, IM_SECRET, IM_ADMIN_USER.
func cmdCleanTarget(args []string) (int, error) {
	flags := flag.NewFlagSet("clean-target", flag.ContinueOnError)
	var (
		run     = flags.String("run", "", "the run's id, or its results folder (without it: the runs that may have left something, listed)")
		results = flags.String("results", "results", "results folder")
		target  = flags.String("target", "", "target profile (default: the run's)")
		force   = flags.Bool("force", false, "remove ids named by the scenario's own prefix, not the run's")
	)
	if err := flags.Parse(args); err != nil {
		return 0, badinput.Wrap(err)
	}
	if flags.NArg() > 0 {
		return 0, badinput.Errorf("unexpected arguments %q", flags.Args())
	}
	if *run == "" {
		left, err := leftovers(*results)
		if err != nil {
			return 0, err
		}
		if len(left) == 0 {
			fmt.Printf("imbench: no run under %s has left anything it could remove\n", *results)
			return 0, nil
		}
		for _, l := range left {
			fmt.Println("imbench: may have left its users and groups (or is still running):", l)
		}
		fmt.Println("imbench: make clean-target RUN=<id> (imbench clean-target -run <id>) removes one run's")
		return 0, nil
	}
	dir := *run
	if !strings.ContainsRune(dir, os.PathSeparator) {
		dir = filepath.Join(*results, dir)
	}
	profiles, err := profile.Load("targets")
	if err != nil {
		return 0, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return cleanTarget(ctx, dir, *target, *force, profiles, os.Getenv, os.Stdout, os.Stderr)
}

// cleanTarget removes what the run of folder dir made on its target (the
// profile named, or the run's). Any failure is exit 1: the removal was
// asked for.
func cleanTarget(ctx context.Context, dir, name string, force bool, profiles map[string]profile.Profile, getenv func(string) string,
	stdout, stderr io.Writer) (int, error) {
	rec, err := runner.ReadSetup(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, badinput.Errorf("%s has no %s: not a run that set a target up", dir, runner.SetupFile)
	}
	if err != nil {
		return 0, err
	}
	if rec.Created == nil {
		return 0, badinput.Errorf("%s: the run's setup record names no ids (an imbench older than clean-target wrote it)", filepath.Join(dir, runner.SetupFile))
	}
	if !rec.Created.OwnedBy(rec.RunID) && !force {
		return 0, badinput.Errorf("run %s named its users with the scenario's prefix %q, not its own: they may be another run's; -force removes them",
			rec.RunID, rec.Created.Prefix)
	}
	if name == "" {
		name = rec.Target
	}
	env, err := cleanEnv(rec, name, profiles, getenv)
	if err != nil {
		return 0, err
	}
	t, err := runner.TargetFromEnv(env, nil)
	if err != nil {
		return 0, badinput.Errorf("%v", err)
	}
	_, proto, err := t.Open()
	if err != nil {
		return 0, badinput.Errorf("%v", err)
	}
	rm, ok := proto.(engine.Remover)
	if !ok {
		return 0, fmt.Errorf("%s cannot remove what a run creates", t.System)
	}
	for _, ep := range slices.Sorted(maps.Keys(t.Endpoints)) {
		if was, used := rec.Endpoints[ep], t.Endpoints[ep]; was != "" && was != used {
			fmt.Fprintf(stdout, "imbench: note: the run reached %s at %s; this goes to %s (%s sets it)\n", ep, was,
				runner.WithoutUserinfo(used), profile.EnvName(ep))
		}
	}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	err = proto.Preflight(pctx)
	cancel()
	if err != nil {
		return 0, fmt.Errorf("target %s: %v", t.Name, err)
	}
	c := rec.Created
	fmt.Fprintf(stdout, "imbench: run %s made %d users, %d groups, %d chatrooms on %s (%s): removing what its API deletes\n",
		rec.RunID, c.Users, len(c.Groups), len(c.Rooms), t.Name, t.System)
	td, err := runner.Teardown(ctx, rm, t.Name, *c, dir)
	td.Report(stdout, stderr)
	if err != nil {
		return 1, err
	}
	if len(td.Errors) > 0 {
		return 1, nil
	}
	return 0, nil
}

// cleanEnv is the environment the runner reads a target from, for the
// run's protocol: each endpoint from IM_<NAME>_URL, else the one the run
// recorded (on its own target), else the profile's; the secret and admin as `imbench run`
// takes them.
func cleanEnv(rec runner.SetupRecord, name string, profiles map[string]profile.Profile, getenv func(string) string) (map[string]string, error) {
	spec, err := engine.Lookup(rec.System)
	if err != nil {
		return nil, err
	}
	p, known := profiles[name]
	if !known && name != rec.Target {
		return nil, badinput.Errorf("unknown target %q (known: %s)", name, strings.Join(profile.Names(profiles), ", "))
	}
	env := map[string]string{"IM_PROTOCOL": rec.System, "IM_TARGET": name, "IM_ENDPOINTS": strings.Join(spec.Endpoints, ","),
		"IM_ALLOW_REMOTE": getenv("IM_ALLOW_REMOTE")}
	for _, ep := range spec.Endpoints {
		// Where the run went comes before the profile's default: a run
		// pointed elsewhere is cleaned where it ran, not on the default
		// server (which would answer "removed" for ids it never had).
		v := getenv(profile.EnvName(ep))
		if v == "" && name == rec.Target {
			v = rec.Endpoints[ep]
		}
		if v == "" {
			v = p.Endpoints[ep]
		}
		env[profile.EnvName(ep)] = v
	}
	secret := getenv("IM_SECRET")
	if secret == "" && name == "reference" {
		if secret, err = stack.TargetSecret(false); err != nil {
			return nil, err
		}
	}
	if secret == "" {
		return nil, badinput.Errorf("target %s needs its admin secret in IM_SECRET", name)
	}
	env["IM_SECRET"] = secret
	if spec.AdminUser {
		env["IM_ADMIN_USER"] = getenv("IM_ADMIN_USER")
		if env["IM_ADMIN_USER"] == "" {
			env["IM_ADMIN_USER"] = p.Admin
		}
	}
	return env, nil
}

// leftovers lists the runs under results whose setup record names what
// they made and that have no teardown record, or one with failures: each
// as "<id> (<target>, <protocol>, set up <time>)", newest first.
func leftovers(results string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(results, "*", runner.SetupFile))
	if err != nil {
		return nil, err
	}
	type run struct {
		line string
		at   time.Time
	}
	var out []run
	for _, f := range files {
		dir := filepath.Dir(f)
		if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
			continue // results/latest, a link to a run listed under its id
		}
		rec, err := runner.ReadSetup(dir)
		if err != nil || rec.Created == nil || removed(dir) {
			continue
		}
		st, err := os.Stat(f)
		if err != nil {
			continue
		}
		out = append(out, run{fmt.Sprintf("%s (%s, %s, set up %s)", filepath.Base(dir), rec.Target, rec.System,
			st.ModTime().Format("2006-01-02 15:04")), st.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].at.After(out[j].at) })
	lines := make([]string, len(out))
	for i, r := range out {
		lines[i] = r.line
	}
	return lines, nil
}

// removed reports whether a run's teardown went without a failure.
func removed(dir string) bool {
	raw, err := os.ReadFile(filepath.Join(dir, runner.TeardownFile))
	var td runner.TeardownRecord
	return err == nil && json.Unmarshal(raw, &td) == nil && len(td.Errors) == 0
}
