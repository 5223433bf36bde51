package limit

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Each saturation rule is said once in one line beside its code, and in
// docs/limit.md's table in the order the rules are tried: the three name
// the same rules.
func TestTheRulesAreTheDocsTable(t *testing.T) {
	code, err := os.ReadFile("saturation.go")
	if err != nil {
		t.Fatal(err)
	}
	var inCode []string
	for _, m := range regexp.MustCompile(`// rule "([^"<]+)": \S`).FindAllStringSubmatch(string(code), -1) {
		inCode = append(inCode, m[1])
	}
	doc, err := os.ReadFile("../../docs/limit.md")
	if err != nil {
		t.Fatal(err)
	}
	var inDocs []string
	table := false
	for _, line := range strings.Split(string(doc), "\n") {
		switch {
		case strings.HasPrefix(line, "| rule | when | named |"):
			table = true
		case table && strings.HasPrefix(line, "| ---"):
		case table && strings.HasPrefix(line, "| "):
			inDocs = append(inDocs, strings.TrimSpace(strings.Split(line, "|")[1]))
		case table:
			table = false
		}
	}
	if !slices.Equal(inDocs, Rules) {
		t.Errorf("docs/limit.md's table names %q;\nRules are %q", inDocs, Rules)
	}
	sorted := slices.Sorted(slices.Values(inCode))
	if want := slices.Sorted(slices.Values(Rules)); !slices.Equal(sorted, want) {
		t.Errorf("saturation.go's one-line rules are %q;\nRules are %q", sorted, want)
	}
}
