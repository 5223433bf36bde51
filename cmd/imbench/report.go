package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/stack"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/runner"
	"github.com/imbench/imbench/report"
)

// runFolder resolves a run id ("" or "latest": the newest) under results.
func runFolder(results, id string) (string, error) {
	if id == "" {
		id = "latest"
	}
	if strings.ContainsAny(id, "/\\") || id == "." || id == ".." {
		return "", badinput.Errorf("RUN %q is not a run id", id)
	}
	dir := filepath.Join(results, id)
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
		if parts, _ := filepath.Glob(filepath.Join(dir, "summary-*.json")); len(parts) == 0 {
			return "", badinput.Errorf("no run %q in %s (no summary.json, no partial summary-*.json)", id, results)
		}
	}
	return dir, nil
}

// writeReport builds a run's report; Prometheus is used when it answers.
func writeReport(dir string, refresh bool) (*report.Report, error) {
	if err := mergePartials(dir); err != nil {
		return nil, err
	}
	var o report.Options
	o.Refresh = refresh
	o.Prom = &report.Prom{URL: "http://" + stack.Addrs().Prometheus} // used if it answers
	s, err := summary.Load(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	profiles, err := profile.Load("targets")
	if err != nil {
		return nil, fmt.Errorf("the report cannot tell the target's processes from the rest: %w", err)
	}
	if p, ok := profiles[s.Target]; ok {
		o.Target = p.Description
		o.Components = targetComponents(p)
	} else if s.Target != "" {
		fmt.Fprintf(os.Stderr, "imbench report: no target profile %q under targets/: no process is counted as the target's\n", s.Target)
	}
	o.Roles = report.Roles(o.Components)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return report.Generate(ctx, dir, o)
}

func cmdReport(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	run := fs.String("run", "", "run id (default: results/latest)")
	results := fs.String("results", "results", "results folder")
	refresh := fs.Bool("refresh", false, "query Prometheus again even if series.json exists")
	if err := fs.Parse(args); err != nil {
		return badinput.Wrap(err)
	}
	dir, err := runFolder(*results, *run)
	if err != nil {
		return err
	}
	r, err := writeReport(dir, *refresh)
	if err != nil {
		return err
	}
	printReportPaths(r)
	if m := r.Summary.Missing; len(m) > 0 {
		return fmt.Errorf("the run is incomplete: segment(s) %s wrote no summary; the report has the others' results", strings.Join(m, ", "))
	}
	return nil
}

func printReportPaths(r *report.Report) {
	src := "summary.json and series.json"
	if r.Series == nil {
		src = "summary.json only (no Prometheus data)"
	}
	fmt.Printf("imbench: report %s and %s (from %s)\n", filepath.Join(r.Dir, "report.md"),
		filepath.Join(r.Dir, "report.html"), src)
}

// mergePartials writes summary.json from the partial summaries of segment
// processes when only those are there: a run whose processes were started
// elsewhere (a Kubernetes Indexed Job's pods writing to a shared volume). Merge
// proves the parts held every user exactly once.
func mergePartials(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	parts, err := filepath.Glob(filepath.Join(dir, "summary-*.json"))
	if err != nil || len(parts) == 0 {
		return err
	}
	n := len(parts)
	if s, err := summary.Load(parts[0]); err == nil && s.Segments > n {
		n = s.Segments // some segment wrote none: runner.MergeSegments names it
	}
	m, err := runner.MergeSegments(dir, n)
	if err != nil {
		return fmt.Errorf("merging the %d partial summaries in %s: %w", len(parts), dir, err)
	}
	fmt.Printf("imbench: merged %d partial summaries into %s\n", len(parts), filepath.Join(dir, "summary.json"))
	for _, w := range m.Warnings {
		fmt.Println("imbench: warning:", w)
	}
	return nil
}

// targetComponents are a profile's process groups, for the report and the
// live view.
func targetComponents(p profile.Profile) []report.Component {
	file := filepath.Join("targets", p.Name, "profile.yaml")
	if _, err := os.Stat(filepath.Join("targets", p.Name, profile.LocalFile)); err == nil {
		file += " (and " + profile.LocalFile + " beside it)"
	}
	var out []report.Component
	for _, pr := range p.Processes {
		out = append(out, report.Component{Group: pr.Group, Note: pr.Note, Profile: file})
	}
	return out
}
