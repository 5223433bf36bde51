// Package layers holds the test that keeps imbench's layers pointing down:
// cmd → bench, load, report, kube → internal → wire.
package layers

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// No package under internal/ imports load/ or report/, nor wire/ a package
// above it: a package that does belongs beside what it imports.
func TestLayersPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "github.com/imbench/imbench/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	const mod = "github.com/imbench/imbench/"
	above := map[string][]string{
		"internal/": {"load/", "report/", "bench/", "cmd/", "kube/"},
		"wire/":     {"internal/", "load/", "report/", "bench/", "cmd/", "targets/"},
		"load/":     {"report/", "bench/", "cmd/", "kube/"},
		"kube/":     {"report/", "bench/", "cmd/"},
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		for layer, bans := range above {
			if !strings.HasPrefix(pkg, layer) {
				continue
			}
			for _, imp := range f[1:] {
				for _, ban := range bans {
					if strings.HasPrefix(imp, mod+ban) {
						t.Errorf("%s imports %s: a package of %s may not import %s", pkg, strings.TrimPrefix(imp, mod), layer, ban)
					}
				}
			}
		}
	}
}

// A command only parses its flags, calls a library and prints: no file
// under cmd/ grows past 200 lines (the work belongs in the library).
func TestCommandFilesAreShort(t *testing.T) {
	files, err := filepath.Glob("../../cmd/*/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no command files: %v", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(raw), "\n"); n > 200 {
			t.Errorf("%s: %d lines (200 at most: move the work into the package that owns it)", strings.TrimPrefix(f, "../../"), n)
		}
	}
}
