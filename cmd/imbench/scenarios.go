package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
)

const scenarioDir = "k6/scenarios"

// scenarioInfo is what `imbench scenarios` lists: read from the scenario's
// header comment (its first sentence up to a colon) and its workload's
// purpose.
type scenarioInfo struct {
	Name, Title, Purpose string
}

var purposeRE = regexp.MustCompile(`(?m)^\s*purpose:\s*'([^']*)'`)

// scenarios lists <system>/<test> for every k6/scenarios/<system>/<test>.js.
func scenarios() ([]string, error) {
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*", "*.js"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		sys := filepath.Base(filepath.Dir(f))
		if sys == "lib" {
			continue
		}
		out = append(out, sys+"/"+strings.TrimSuffix(filepath.Base(f), ".js"))
	}
	sort.Strings(out)
	return out, nil
}

func readScenario(name string) (scenarioInfo, error) {
	raw, err := os.ReadFile(filepath.Join(scenarioDir, name+".js"))
	if err != nil {
		return scenarioInfo{}, err
	}
	info := scenarioInfo{Name: name}
	first, _, _ := strings.Cut(string(raw), "\n")
	title := strings.TrimSpace(strings.TrimPrefix(first, "//"))
	if i := strings.Index(title, ":"); i > 0 {
		title = title[:i]
	}
	info.Title = title
	if m := purposeRE.FindSubmatch(raw); m != nil {
		info.Purpose = string(m[1])
	}
	return info, nil
}

func cmdScenarios(args []string) error {
	if len(args) > 0 {
		return badInput("scenarios takes no arguments")
	}
	names, err := scenarios()
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SCENARIO\tWHAT\tPURPOSE")
	for _, n := range names {
		info, err := readScenario(n)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", info.Name, info.Title, info.Purpose)
	}
	fmt.Fprintln(w, "\nmake run-scenario SCENARIO=<scenario> [SCALE=] [RATE=] [DURATION=] [TARGET=]")
	return w.Flush()
}

// nearest is the known name closest to name, by edit distance, if it is
// close enough to be a misspelling.
func nearest(name string, known []string) (string, bool) {
	best, bestD := "", len(name)/2+1
	for _, k := range known {
		if d := editDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best, best != ""
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
