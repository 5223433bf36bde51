package main

import (
	"flag"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/load/limit"
	"github.com/imbench/imbench/load/runner"
)

// parseLimit reads limit's flags; the scenario's own options.limit fills
// what no flag set.
func parseLimit(args []string) (*limitConfig, error) {
	fs := flag.NewFlagSet("limit", flag.ContinueOnError)
	var (
		scenario   = fs.String("scenario", "", "the scenario whose load rises (required)")
		target     = fs.String("target", "reference", "target profile under targets/")
		protocol   = fs.String("protocol", "", "the protocol to speak, where the target speaks several")
		scale      = fs.String("scale", "", "scales the scenario's users (its rate is the search's)")
		slo        = fs.String("slo", "e2e_p99<1000,lost==0,late==0,unchecked==0", "the objective every step must meet: conditions on the run's figures, as thresholds name them")
		dimension  = fs.String("dimension", "rate", "what rises: rate (the open classes' messages a second) or users (users held online: a hold scenario)")
		start      = fs.Float64("start", 0, "the first step's load (default: 100 msg/s, or 1,000 users)")
		factor     = fs.Float64("factor", 2, "each step that holds multiplies the load by this, until one breaks")
		resolution = fs.Float64("resolution", 0.05, "narrow the interval between the last load held and the first broken to this share")
		most       = fs.Float64("max", 0, "the most load to try (0: no cap)")
		step       = fs.Duration("step", 30*time.Second, "how long each step sends (rate) or holds (users)")
		maxSteps   = fs.Int("max-steps", 20, "the most steps the search makes")
		retries    = fs.Int("retries", 2, "how many times a step that broke while other processes took the machine's cores runs again at its load before the search is undetermined on this machine (-1: none)")
		confirm    = fs.Bool("confirm", true, "run the knee and the limit found once more before reporting them")
		runID      = fs.String("run-id", "", "the search's id (default: generated); step n is <id>_s<n>")
		results    = fs.String("results", "results", "results folder")
		quiet      = fs.Bool("q", false, "no progress lines within a step")
		beforeStep = fs.String("before-step", "", "a shell command run before each step, e.g. one that restarts the server with an empty store; a step does not start unless it exits 0")
	)
	if err := fs.Parse(args); err != nil {
		return nil, badinput.Wrap(err)
	}
	if fs.NArg() > 0 {
		return nil, badinput.Errorf("unexpected arguments %q", fs.Args())
	}
	runArgs := []string{"-scenario", *scenario, "-target", *target, "-results", *results, "-q"}
	for flagName, v := range map[string]string{"-protocol": *protocol, "-scale": *scale, "-run-id": *runID} {
		if v != "" {
			runArgs = append(runArgs, flagName, v)
		}
	}
	rc, err := parseRun(runArgs)
	if err != nil {
		return nil, err
	}
	// The scenario's own search (options.limit) fills what no flag set.
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	env := map[string]string{}
	for _, kv := range rc.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	sc, err := runner.Load(rc.script, env, rc.runID)
	if err != nil {
		return nil, badinput.Errorf("%v", err)
	}
	if lo := sc.Options.Limit; lo != nil {
		str := func(name string, dst *string, v string) {
			if !set[name] && v != "" {
				*dst = v
			}
		}
		num := func(name string, dst *float64, v float64) {
			if !set[name] && v != 0 {
				*dst = v
			}
		}
		str("slo", slo, lo.Objective)
		str("dimension", dimension, lo.Dimension)
		num("start", start, lo.Start)
		num("max", most, lo.Max)
		num("factor", factor, lo.Factor)
		num("resolution", resolution, lo.Resolution)
		if !set["step"] && lo.Step != "" {
			d, err := time.ParseDuration(lo.Step)
			if err != nil {
				return nil, badinput.Errorf("%s: options.limit.step %q is not a duration", rc.scenario, lo.Step)
			}
			*step = d
		}
	}
	if *step < 5*time.Second || *step > time.Hour {
		return nil, badinput.Errorf("STEP must be within 5s..1h, got %s", *step)
	}
	lc := &limitConfig{rc: rc, step: *step, quiet: *quiet, beforeStep: strings.TrimSpace(*beforeStep),
		params: limit.Params{Dimension: *dimension, Start: *start, Factor: *factor, Resolution: *resolution, Max: *most, MaxSteps: *maxSteps, Retries: *retries,
			Restarted: strings.TrimSpace(*beforeStep) != ""}}
	if !*confirm {
		lc.params.Confirm = -1
	}
	if lc.params.Start == 0 {
		lc.params.Start = 100
		if lc.params.Dimension == "users" {
			lc.params.Start = 1000
		}
	}
	lc.params.Defaults()
	if err := lc.params.Validate(); err != nil {
		return nil, badinput.Errorf("%v", err)
	}
	if lc.objective, err = limit.ParseObjective(*slo); err != nil {
		return nil, badinput.Errorf("%v", err)
	}
	// The search's steps are named <id>_s<n>: the id leaves room for them.
	if len(rc.runID) > 28 {
		return nil, badinput.Errorf("the search's id %q leaves no room for its steps' (<id>_s<n>): 28 characters at most", rc.runID)
	}
	return lc, nil
}
