package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/report"
)

// errRegression makes compare exit 3: a figure got worse beyond the threshold.
var errRegression = errors.New("regression")

func cmdCompare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	a := fs.String("a", "", "baseline run id")
	b := fs.String("b", "", "run id to compare with the baseline")
	results := fs.String("results", "results", "results folder")
	threshold := fs.Float64("threshold", 10, "flag figures worse by more than this many percent")
	if err := fs.Parse(args); err != nil {
		return badinput.Wrap(err)
	}
	if *a == "" || *b == "" {
		return badinput.Errorf("compare needs A=<run id> and B=<run id>")
	}
	if *threshold <= 0 || *threshold > 1000 {
		return badinput.Errorf("THRESHOLD must be a percentage above 0, got %v", *threshold)
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
	rows := report.Compare(ra, rb, *threshold/100)
	fmt.Print(report.CompareMarkdown(ra, rb, rows, *threshold/100))
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
	fmt.Printf("\nimbench: no figure of %s is worse than %s beyond %v %%\n", *b, *a, *threshold)
	return nil
}
