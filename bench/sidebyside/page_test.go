package sidebyside_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imbench/imbench/bench/sidebyside"
)

// Each docs/side-by-side-*.md is what the generator makes of the JSON
// beside it, and a page says when, from what and every run.
func TestTheSideBySidePagesAreGenerated(t *testing.T) {
	found, _ := filepath.Glob("../../docs/side-by-side-*.json")
	if len(found) == 0 {
		t.Fatal("no docs/side-by-side-*.json: benchmark-method.md links two")
	}
	for _, in := range found {
		raw, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sidebyside.RenderPage(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(strings.TrimSuffix(in, ".json") + ".md")
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s.md is not its JSON's page (%v): imbench side-by-side-page -in %s -name %s", strings.TrimSuffix(in, ".json"), err, in,
				strings.TrimSuffix(filepath.Base(in), ".json"))
		}
		for _, s := range []string{"| measured |", "| commit |", "alternating rounds", "| round | tool |"} {
			if !bytes.Contains(got, []byte(s)) {
				t.Fatalf("%s lacks %q", in, s)
			}
		}
	}
	if _, err := sidebyside.RenderPage([]byte(`{"runs":[]}`)); err == nil {
		t.Fatal("a JSON with no runs made a page")
	}
}
