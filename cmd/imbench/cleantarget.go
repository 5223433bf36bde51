package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
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
		left, err := runner.Leftovers(*results)
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
	return runner.CleanTarget(ctx, dir, *target, *force, profiles, os.Getenv, os.Stdout, os.Stderr)
}
