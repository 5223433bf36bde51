package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/stack"
)

// `imbench up [-target T]`, `down` and `status`: the stack, native or
// compose (internal/stack).

func cmdUp(args []string) error {
	target, err := stackFlags("up", args)
	if err != nil {
		return err
	}
	return stack.Up(target)
}

func cmdDown(args []string) error { return stack.Down() }

func cmdStatus(args []string) error {
	if home := stack.UseRunningStack(); home != "" {
		fmt.Printf("the stack answering is %s's (another checkout; make down there stops it)\n", home)
	}
	return stack.Status()
}

func stackFlags(name string, args []string) (string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	target := fs.String("target", "reference", "a profile under targets/: reference starts the reference target too; any other is a real server")
	if err := fs.Parse(args); err != nil {
		return "", badinput.Wrap(err)
	}
	if *target == "" {
		*target = "reference"
	}
	profiles, err := profile.Load("targets")
	if err != nil {
		return "", err
	}
	if _, ok := profiles[*target]; !ok {
		return "", badinput.Errorf("unknown target %q (known: %s)", *target, strings.Join(profile.Names(profiles), ", "))
	}
	return *target, nil
}
