package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/load/limit"
	"github.com/imbench/imbench/report"
)

// errRegression makes compare exit 3: a figure got worse beyond the threshold.
var errRegression = errors.New("regression")

func cmdCompare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	a := fs.String("a", "", "baseline run id")
	b := fs.String("b", "", "run id to compare with the baseline")
	results := fs.String("results", "results", "results folder")
	threshold := fs.Float64("threshold", 10, "flag latencies, rates and costs worse by more than this many percent")
	tolerance := fs.Int64("tolerance", 0, "flag an integrity count (lost, late, unchecked, unanswered, duplicates, out of order, corrupted, login failures) higher in B by more than this many")
	if err := fs.Parse(args); err != nil {
		return badinput.Wrap(err)
	}
	if *a == "" || *b == "" {
		return badinput.Errorf("compare needs A=<run id> and B=<run id>")
	}
	if *threshold <= 0 || *threshold > 1000 {
		return badinput.Errorf("THRESHOLD must be a percentage above 0, got %v", *threshold)
	}
	if *tolerance < 0 {
		return badinput.Errorf("TOLERANCE must be a count of 0 or more, got %d", *tolerance)
	}
	if la, lb, ok := bothSearches(*results, *a, *b); ok {
		return compareSearches(la, lb, *threshold/100)
	}
	da, err := runFolder(*results, *a)
	if err != nil {
		return err
	}
	db, err := runFolder(*results, *b)
	if err != nil {
		return err
	}
	ra, err := report.Load(da)
	if err != nil {
		return err
	}
	rb, err := report.Load(db)
	if err != nil {
		return err
	}
	rows := report.Compare(ra, rb, *threshold/100, *tolerance)
	fmt.Print(report.CompareMarkdown(ra, rb, rows, *threshold/100, *tolerance))
	var worse []string
	for _, r := range rows {
		if r.Flagged {
			worse = append(worse, r.Name)
		}
	}
	if len(worse) > 0 {
		fmt.Fprintf(os.Stderr, "imbench: %s is worse than %s: %s\n", *b, *a, strings.Join(worse, ", "))
		return errRegression
	}
	fmt.Printf("\nimbench: no figure of %s is worse than %s beyond %v %%, and no integrity count rose by more than %d\n", *b, *a, *threshold, *tolerance)
	return nil
}

// bothSearches reads two limit searches' limit.json, when both ids are
// searches.
func bothSearches(results, a, b string) (limit.Result, limit.Result, bool) {
	if strings.ContainsAny(a+b, "/\\") {
		return limit.Result{}, limit.Result{}, false
	}
	la, errA := limit.Load(filepath.Join(results, a))
	lb, errB := limit.Load(filepath.Join(results, b))
	return la, lb, errA == nil && errB == nil
}

// compareSearches compares two searches' limits: B is worse when its limit
// is lower than A's by more than the threshold (a share).
func compareSearches(a, b limit.Result, threshold float64) error {
	if a.Params.Dimension != b.Params.Dimension {
		return badinput.Errorf("%s searched %s, %s %s: not the same load", a.SearchID, a.Params.Dimension, b.SearchID, b.Params.Dimension)
	}
	fmt.Print(limit.CompareMarkdown(a, b))
	if a.Objective != b.Objective {
		fmt.Printf("\nimbench: note: the objectives differ (%s, %s)\n", a.Objective, b.Objective)
	}
	switch {
	case b.GeneratorLimited || a.GeneratorLimited:
		fmt.Println("\nimbench: a search whose limit was the generator's compares nothing of the server's")
	case a.Limit > 0 && b.Limit < a.Limit*(1-threshold):
		fmt.Fprintf(os.Stderr, "imbench: %s's limit (%s) is lower than %s's (%s) by more than %v %%\n", b.SearchID,
			limit.LoadText(b.Limit, b.Params.Dimension), a.SearchID, limit.LoadText(a.Limit, a.Params.Dimension), threshold*100)
		return errRegression
	}
	fmt.Printf("\nimbench: %s's limit is not lower than %s's beyond %v %%\n", b.SearchID, a.SearchID, threshold*100)
	return nil
}
