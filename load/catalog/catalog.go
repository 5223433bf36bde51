// Package catalog is the scenario catalog: the files under load/scenarios,
// <system>/<test>.js each, what their headers say (purpose, sizes, the
// protocols that can carry them), and the nearest name to a misspelt one.
// Paths are relative to the project root, where imbench runs.
package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Dir holds the catalog, one folder per system.
const Dir = "load/scenarios"

// Info is what `imbench scenarios` lists: read from the scenario's
// header comment (its first sentence up to a colon), its workload's
// purpose, and a `// protocols: a, b` line where only some protocols can
// carry it (a chatroom), in order of preference.
type Info struct {
	Name, Title, Purpose string
	Protocols            []string
	Default, Seed        string // its sizes: at its default SCALE, and at SCALE=1 (the seed's)
}

var (
	purposeRE   = regexp.MustCompile(`(?m)^\s*purpose:\s*'([^']*)'`)
	protocolsRE = regexp.MustCompile(`(?m)^// protocols: ([a-z0-9, ]+)$`)
	sizeRE      = regexp.MustCompile(`(?m)^// size: (.+) \| SCALE=1: (.+)$`)
)

// DefaultProtocol is the protocol a scenario runs over against a target
// speaking speaks (its system's first): those the scenario names, else its
// own system's, else the target's.
func (info Info) DefaultProtocol(system string, speaks []string) (string, error) {
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

// Names lists <system>/<test> for every load/scenarios/<system>/<test>.js.
func Names() ([]string, error) {
	files, err := filepath.Glob(filepath.Join(Dir, "*", "*.js"))
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

// Read reads what a scenario's file says about it.
func Read(name string) (Info, error) {
	raw, err := os.ReadFile(Script(name))
	if err != nil {
		return Info{}, err
	}
	info := Info{Name: name}
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

// IsScriptPath says whether a scenario is given as a file of the user's
// own (k6 run's way: path/to/scenario.js) rather than a catalog name.
func IsScriptPath(name string) bool {
	return strings.HasSuffix(name, ".js") || strings.HasSuffix(name, ".ts")
}

// Script is the file of a catalog name, or the path itself.
func Script(name string) string {
	if IsScriptPath(name) {
		return name
	}
	return filepath.Join(Dir, name+".js")
}

// Nearest is the known name closest to name, by edit distance, if it is
// close enough to be a misspelling.
func Nearest(name string, known []string) (string, bool) {
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
