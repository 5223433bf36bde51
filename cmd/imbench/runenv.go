package main

import (
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/loopback"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/stack"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/procgroup"
	"github.com/imbench/imbench/load/segment"
)

// knobEnv is the scenario's knobs given on the command line, checked.
func knobEnv(scale, rate, vus, duration string) (map[string]string, error) {
	env := map[string]string{}
	for name, raw := range map[string]string{"SCALE": scale, "RATE": rate, "VUS": vus} {
		if raw == "" {
			continue
		}
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil || v <= 0 || v > 1e6 {
			return nil, badinput.Errorf("%s must be a positive number, got %q", name, raw)
		}
		if name == "VUS" && v != float64(int(v)) {
			return nil, badinput.Errorf("VUS must be a whole number, got %q", raw)
		}
		env["IM_"+name] = raw
	}
	if duration != "" {
		if d, err := time.ParseDuration(duration); err != nil || d <= 0 || d > 30*24*time.Hour {
			return nil, badinput.Errorf("DURATION must be a duration such as 10m or 24h, got %q", duration)
		}
		env["IM_DURATION"] = duration
	}
	return env, nil
}

// targetEnv sets where the target is and how the run reaches it: each
// endpoint (IM_<NAME>_URL over the profile's), its admin and secret, and
// what the run tells the scenario of itself.
func (rc *runConfig) targetEnv(p profile.Profile, spec engine.Spec, env map[string]string) (err error) {
	rc.endpoints = profile.Endpoints{}
	for name, def := range p.Endpoints {
		if !slices.Contains(spec.Endpoints, name) {
			continue // another protocol's
		}
		rc.endpoints[name] = envOr(profile.EnvName(name), def)
		env[profile.EnvName(name)] = rc.endpoints[name]
	}
	env["IM_ENDPOINTS"] = strings.Join(slices.Sorted(maps.Keys(rc.endpoints)), ",")
	rc.admin = envOr("IM_ADMIN_USER", p.Admin)
	rc.allowRemote = os.Getenv("IM_ALLOW_REMOTE") == "1"
	rc.secret = os.Getenv("IM_SECRET")
	rc.stackHome = stack.UseRunningStack()
	if rc.secret == "" && p.Name == "reference" {
		if rc.secret, err = stack.TargetSecret(false); err != nil {
			return err
		}
	}
	if rc.secret == "" {
		return badinput.Errorf("target %s needs its admin secret in IM_SECRET", p.Name)
	}
	env["IM_TARGET"], env["IM_PROTOCOL"] = p.Name, rc.protocol
	if v := os.Getenv("IM_KEEP"); v != "" {
		env["IM_KEEP"] = v // the compose runner sees only what this passes
	}
	if cores := serverCores(p, rc.endpoints); cores > 0 {
		env["IM_SERVER_CORES"] = strconv.Itoa(cores)
	}
	env["IM_SECRET"], env["IM_ADMIN_USER"], env["IM_RUN_ID"] = rc.secret, rc.admin, rc.runID
	env["IM_RESULTS_DIR"] = rc.resultsDir
	env["IM_IMBENCH_VERSION"] = imbenchVersion()
	if p.Name == "reference" && os.Getenv("IM_STORM_URL") == "" {
		env["IM_STORM_URL"] = "http://" + stack.Addrs().Metrics + "/fault/storm" // beside its /metrics
	}
	return nil
}

// imbenchVersion is `git describe` of the checkout, or "unknown".
func imbenchVersion() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty", "--tags").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// serverCores is the target machine's cores: IM_SERVER_CORES, the
// profile's, or where the target runs here (the reference target; every
// endpoint on loopback) the CPUs its listening processes may run on (a
// server pinned to one core has one), else this machine's, all its CPUs,
// not the few this process may be pinned to.
func serverCores(p profile.Profile, endpoints profile.Endpoints) int {
	if v, err := strconv.Atoi(os.Getenv("IM_SERVER_CORES")); err == nil && v > 0 {
		return v
	}
	if p.Cores > 0 {
		return p.Cores
	}
	local := len(endpoints) > 0
	for _, e := range endpoints {
		local = local && loopback.Require(e) == nil
	}
	if p.Name == "reference" || local {
		var urls []string
		for _, u := range endpoints {
			urls = append(urls, u)
		}
		if n := procgroup.ServingCPUs(procgroup.Ports(urls)); n > 0 {
			return n
		}
		return procgroup.MachineCores()
	}
	return 0
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// splitFlags checks how the run is split: -segments, -segment i/n, its
// -start-at and -setup-only -split-into.
func (rc *runConfig) splitFlags(seg string, startAt int64) (err error) {
	if rc.segments < 1 || rc.segments > 64 {
		return badinput.Errorf("SEGMENTS must be within 1..64, got %d", rc.segments)
	}
	if rc.splitInto < 0 || rc.splitInto > 0 && !rc.setupOnly {
		return badinput.Errorf("-split-into goes with -setup-only: the segments the run it sets up will have")
	}
	if seg != "" {
		if rc.segment, err = segment.Parse(seg); err != nil {
			return badinput.Errorf("%v", err)
		}
		if rc.segments > 1 {
			return badinput.Errorf("-segment runs one segment of a split run; -segments splits one: give one of them")
		}
	}
	if rc.segments > 1 && (rc.setupOnly || startAt != 0) {
		return badinput.Errorf("-segments runs the whole split run (its setup and common start included): -setup-only and -start-at go with -segment i/n")
	}
	if startAt != 0 && !rc.segment.Split() {
		return badinput.Errorf("-start-at is the common clock of a split run's segments: give -segment i/n too")
	}
	if startAt != 0 {
		rc.startAt = time.UnixMilli(startAt)
	}
	if rc.segment.Split() && rc.startAt.IsZero() && !rc.setupOnly {
		return badinput.Errorf("-segment %s needs -start-at: the unix ms every segment keeps time from", rc.segment)
	}
	return nil
}
