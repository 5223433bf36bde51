package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/imbench/imbench/bench"
	"github.com/imbench/imbench/bench/sidebyside"
	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/runid"
)

// `imbench side-by-side`: one workload under two load tools, alternating,
// each run on a fresh server, the server's and each tool's cost per
// delivery compared (bench/sidebyside).

type toolFlags []sidebyside.Tool

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func (t *toolFlags) String() string { return fmt.Sprint(*t) }

func (t *toolFlags) Set(v string) error {
	name, command, ok := strings.Cut(v, "=")
	if !ok || name == "" || strings.TrimSpace(command) == "" {
		return fmt.Errorf("%q: want name=command", v)
	}
	*t = append(*t, sidebyside.Tool{Name: name, Command: command})
	return nil
}

func parseSideBySide(args []string) (sidebyside.Config, string, string, error) {
	fs := flag.NewFlagSet("side-by-side", flag.ContinueOnError)
	var tools toolFlags
	fs.Var(&tools, "tool", "a load tool, name=command, given twice: ratios are the first's ÷ the second's")
	var (
		c       sidebyside.Config
		count   = fs.String("count", "", "the server's delivery counter: its Prometheus metrics URL#metric (required)")
		id      = fs.String("run-id", "", "the measurement's id (default: generated)")
		results = fs.String("results", "results", "results folder: <id>/side-by-side.json and .md go there")
		words   = fs.String("workload", "", "what the tools run, in words, for the table's page")
	)
	var also listFlag
	fs.Var(&also, "also", "another counter on -count's page, reported per delivery in the send window (repeatable), e.g. the server's pings")
	fs.IntVar(&c.Rounds, "rounds", 5, "rounds; each runs both tools, which goes first alternating")
	fs.StringVar(&c.Before, "before", "", "a command that starts a fresh server, before every run")
	fs.StringVar(&c.After, "after", "", "a command that stops it, after every run")
	fs.StringVar(&c.Server, "server", "", "a command printing the PIDs of the server's processes (required)")
	fs.StringVar(&c.ServerCPUs, "server-cpus", "", "pin the server to these CPUs (e.g. 0)")
	fs.StringVar(&c.ToolCPUs, "tool-cpus", "", "run each tool on these CPUs (e.g. 1)")
	fs.DurationVar(&c.Timeout, "timeout", 10*time.Minute, "the longest any command may take")
	if err := fs.Parse(args); err != nil {
		return c, "", "", badinput.Wrap(err)
	}
	if fs.NArg() > 0 {
		return c, "", "", badinput.Errorf("unexpected arguments %q", fs.Args())
	}
	if len(tools) != 2 {
		return c, "", "", badinput.Errorf("side-by-side needs -tool twice (name=command), got %d", len(tools))
	}
	c.Tools = [2]sidebyside.Tool{tools[0], tools[1]}
	c.Also = also
	if *count != "" {
		u, m, ok := strings.Cut(*count, "#")
		if !ok || !strings.HasPrefix(u, "http") || m == "" {
			return c, "", "", badinput.Errorf("-count %q: want http://host:port/metrics#counter_name", *count)
		}
		c.CountURL, c.CountMetric = u, m
	}
	if err := c.Check(); err != nil {
		return c, "", "", badinput.Errorf("%v", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if *id == "" {
		*id = runid.New()
	}
	if err := runid.Check(*id); err != nil {
		return c, "", "", badinput.Errorf("run id %q: %v", *id, err)
	}
	dir := filepath.Join(*results, *id)
	if _, err := os.Stat(dir); err == nil {
		return c, "", "", badinput.Errorf("%s exists: a measurement never overwrites another (give another -run-id)", dir)
	}
	return c, dir, *words, nil
}

func cmdSideBySide(args []string) (int, error) {
	c, dir, words, err := parseSideBySide(args)
	if err != nil {
		return 0, err
	}
	// An interrupt ends the running tool's process group and still runs
	// -after: nothing started is left behind.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, merr := sidebyside.Measure(ctx, c, os.Stdout)
	if res == nil || len(res.Runs) == 0 {
		return 1, merr
	}
	// The runs that ended are kept, a measurement cut short included.
	res.Commit, res.Workload = bench.Commit(), words
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 1, errors.Join(merr, err)
	}
	raw, _ := json.MarshalIndent(res, "", "  ")
	md := res.Markdown()
	werr := errors.Join(os.WriteFile(filepath.Join(dir, "side-by-side.json"), append(raw, '\n'), 0o644),
		os.WriteFile(filepath.Join(dir, "side-by-side.md"), []byte(md), 0o644))
	fmt.Print("\n" + md + "\n")
	if merr != nil {
		fmt.Printf("imbench: side-by-side cut short; the %d runs that ended are in %s\n", len(res.Runs), dir)
		return 1, errors.Join(merr, werr)
	}
	fmt.Printf("imbench: side-by-side in %s (side-by-side.json, side-by-side.md)\n", dir)
	return 0, werr
}

// `imbench side-by-side-page`: docs/<name>.md from a measurement's JSON.
func cmdSideBySidePage(args []string) error {
	fs := flag.NewFlagSet("side-by-side-page", flag.ContinueOnError)
	in := fs.String("in", "", "a side-by-side.json (required)")
	name := fs.String("name", "side-by-side", "the page's name under docs/")
	if err := fs.Parse(args); err != nil {
		return badinput.Wrap(err)
	}
	if *in == "" || fs.NArg() > 0 {
		return badinput.Errorf("side-by-side-page needs -in results/<id>/side-by-side.json and nothing else")
	}
	if err := sidebyside.Page(*in, "docs", *name); err != nil {
		return badinput.Errorf("side-by-side page: %v", err)
	}
	fmt.Printf("imbench: docs/%s.md and docs/%s.json\n", *name, *name)
	return nil
}
