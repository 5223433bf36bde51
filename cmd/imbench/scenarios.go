package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/imbench/imbench/internal/profile"
)

const scenarioDir = "load/scenarios"

// scenarioInfo is what `imbench scenarios` lists: read from the scenario's
// header comment (its first sentence up to a colon), its workload's
// purpose, and a `// protocols: a, b` line where only some protocols can
// carry it (a chatroom), in order of preference.
type scenarioInfo struct {
	Name, Title, Purpose string
	Protocols            []string
	Default, Seed        string // its sizes: at its default SCALE, and at SCALE=1 (the seed's)
}

var (
	purposeRE   = regexp.MustCompile(`(?m)^\s*purpose:\s*'([^']*)'`)
	protocolsRE = regexp.MustCompile(`(?m)^// protocols: ([a-z0-9, ]+)$`)
	sizeRE      = regexp.MustCompile(`(?m)^// size: (.+) \| SCALE=1: (.+)$`)
)

// defaultProtocol is the protocol a scenario runs over against a target
// speaking speaks (its system's first): those the scenario names, else its
// own system's, else the target's.
func (info scenarioInfo) defaultProtocol(system string, speaks []string) (string, error) {
	if len(info.Protocols) > 0 {
		for _, p := range info.Protocols {
			if slices.Contains(speaks, p) {
				return p, nil
			}
		}
		return "", fmt.Errorf("%s needs a target speaking %s; this one speaks %s", info.Name,
			strings.Join(info.Protocols, " or "), strings.Join(speaks, ", "))
	}
	if sys, _, _ := strings.Cut(info.Name, "/"); slices.Contains(speaks, sys) {
		return sys, nil
	}
	return system, nil
}

// scenarios lists <system>/<test> for every load/scenarios/<system>/<test>.js.
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
	raw, err := os.ReadFile(scriptOf(name))
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
	if m := sizeRE.FindSubmatch(raw); m != nil {
		info.Default, info.Seed = string(m[1]), string(m[2])
	}
	if m := protocolsRE.FindSubmatch(raw); m != nil {
		for _, p := range strings.Split(string(m[1]), ",") {
			if p = strings.TrimSpace(p); p != "" {
				info.Protocols = append(info.Protocols, p)
			}
		}
	}
	return info, nil
}

// isScriptPath says whether a scenario is given as a file of the user's
// own (k6 run's way: path/to/scenario.js) rather than a catalog name.
func isScriptPath(name string) bool {
	return strings.HasSuffix(name, ".js") || strings.HasSuffix(name, ".ts")
}

// scriptOf is the file of a catalog name, or the path itself.
func scriptOf(name string) string {
	if isScriptPath(name) {
		return name
	}
	return filepath.Join(scenarioDir, name+".js")
}

func cmdScenarios(args []string) error {
	if len(args) > 0 {
		return badInput("scenarios takes no arguments")
	}
	names, err := scenarios()
	if err != nil {
		return err
	}
	profiles, err := profile.Load("targets")
	if err != nil {
		return err
	}
	ref := profiles["reference"]
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SCENARIO\tWHAT\tPROTOCOL\tDEFAULT SIZE\tSCALE=1\tPURPOSE")
	for _, n := range names {
		info, err := readScenario(n)
		if err != nil {
			return err
		}
		proto, err := info.defaultProtocol(ref.System, ref.Speaks())
		if err != nil {
			proto = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", info.Name, info.Title, proto, info.Default, info.Seed, info.Purpose)
	}
	fmt.Fprintln(w, "\nPROTOCOL is what it speaks to the reference target by default (PROTOCOL= picks another it carries);")
	fmt.Fprintln(w, "every file's header quotes its seed's setup and figures.")
	fmt.Fprintln(w, "make run-scenario SCENARIO=<scenario> [SCALE=] [RATE=] [DURATION=] [TARGET=] [PROTOCOL=]")
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
