package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/stack"
	"github.com/imbench/imbench/load/engine"
)

// CleanTarget removes what the run of folder dir made on its target (the
// profile named, or the run's). Any failure is exit 1: the removal was
// asked for.
func CleanTarget(ctx context.Context, dir, name string, force bool, profiles map[string]profile.Profile, getenv func(string) string,
	stdout, stderr io.Writer) (int, error) {
	rec, err := ReadSetup(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, badinput.Errorf("%s has no %s: not a run that set a target up", dir, SetupFile)
	}
	if err != nil {
		return 0, err
	}
	if rec.Created == nil {
		return 0, badinput.Errorf("%s: the run's setup record names no ids (an imbench older than clean-target wrote it)", filepath.Join(dir, SetupFile))
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
	t, err := TargetFromEnv(env, nil)
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
				WithoutUserinfo(used), profile.EnvName(ep))
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
	td, err := Teardown(ctx, rm, t.Name, *c, dir)
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
func cleanEnv(rec SetupRecord, name string, profiles map[string]profile.Profile, getenv func(string) string) (map[string]string, error) {
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

// Leftovers lists the runs under results whose setup record names what
// they made and that have no teardown record, or one with failures: each
// as "<id> (<target>, <protocol>, set up <time>)", newest first.
func Leftovers(results string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(results, "*", SetupFile))
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
		rec, err := ReadSetup(dir)
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
	raw, err := os.ReadFile(filepath.Join(dir, TeardownFile))
	var td TeardownRecord
	return err == nil && json.Unmarshal(raw, &td) == nil && len(td.Errors) == 0
}
