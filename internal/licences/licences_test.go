package licences

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// fixtureEnv keeps the fixture graphs off the network: they hold only
// directory replacements.
var fixtureEnv = []string{"GOPROXY=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}

// fixture writes a throwaway main module, example.com/app from
// testdata/fixture/app, that depends on example.com/mit and on each of
// deps, every one replaced by its directory under testdata/fixture.
// tools, if set, are packages a tools/wrap wrapper module imports.
func fixture(t *testing.T, deps []string, tools []string) string {
	t.Helper()
	fixtures, err := filepath.Abs(filepath.Join("testdata", "fixture"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"app.go", "LICENSE"} {
		b, err := os.ReadFile(filepath.Join(fixtures, "app", name))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, name), string(b))
	}
	requires := func(mods []string) string {
		var b strings.Builder
		for _, m := range mods {
			b.WriteString("require example.com/" + m + " v0.0.0\n")
			b.WriteString("replace example.com/" + m + " => " + filepath.Join(fixtures, m) + "\n")
		}
		return b.String()
	}
	write(t, filepath.Join(dir, "go.mod"), "module example.com/app\n\ngo 1.22\n\n"+requires(append([]string{"mit"}, deps...)))
	if len(deps) > 0 {
		src := "package app\n\nimport (\n"
		for _, d := range deps {
			src += "\t_ \"example.com/" + d + "\"\n"
		}
		write(t, filepath.Join(dir, "deps.go"), src+")\n")
	}
	if len(tools) > 0 {
		wrap := filepath.Join(dir, "tools", "wrap")
		var mods []string
		src := "//go:build tools\n\npackage tools\n\nimport (\n"
		for _, pkg := range tools {
			src += "\t_ \"" + pkg + "\"\n"
			mods = append(mods, strings.Split(strings.TrimPrefix(pkg, "example.com/"), "/")[0])
		}
		write(t, filepath.Join(wrap, "tools.go"), src+")\n")
		write(t, filepath.Join(wrap, "go.mod"), "module imbench.local/tools/wrap\n\ngo 1.22\n\n"+requires(mods))
	}
	return dir
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runGate(t *testing.T, g Gate) Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	rep, err := g.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// failures maps each failing module's path to its problem.
func failures(rep Report) map[string]string {
	m := map[string]string{}
	for _, f := range rep.Failures() {
		m[f.Module.Path] = f.Problem
	}
	return m
}

func TestPermissiveFixturePasses(t *testing.T) {
	rep := runGate(t, Gate{Root: fixture(t, nil, nil), Env: fixtureEnv})
	if bad := failures(rep); len(bad) > 0 {
		t.Fatalf("a graph of MIT modules fails: %v", bad)
	}
	var found []string
	for _, f := range rep.Findings {
		found = append(found, f.Module.Path+" ("+f.Found()+")")
	}
	if got, want := strings.Join(found, ", "), "example.com/app (LICENSE: MIT), example.com/mit (LICENSE: MIT)"; got != want {
		t.Errorf("findings: %s, want %s", got, want)
	}
}

func TestAGPLModuleFails(t *testing.T) {
	rep := runGate(t, Gate{Root: fixture(t, []string{"agpl"}, nil), Env: fixtureEnv})
	bad := failures(rep)
	if len(bad) != 1 || !strings.Contains(bad["example.com/agpl"], "AGPL-3.0") {
		t.Fatalf("want example.com/agpl alone failing for AGPL-3.0, got %v", bad)
	}
	f := rep.Failures()[0]
	if !strings.Contains(f.Module.String(), "example.com/agpl v0.0.0 => ") || !strings.Contains(f.Found(), "LICENSE: AGPL-3.0") {
		t.Errorf("the failure should name the module, its version and what was found: %s: %s", f.Module, f.Found())
	}
	t.Logf("%s: %s", f.Module, f.Problem)
}

func TestModuleWithoutLicenceFails(t *testing.T) {
	rep := runGate(t, Gate{Root: fixture(t, []string{"nolicence"}, nil), Env: fixtureEnv})
	bad := failures(rep)
	if len(bad) != 1 || !strings.HasPrefix(bad["example.com/nolicence"], "no licence file") {
		t.Fatalf("want example.com/nolicence alone failing for having no licence file, got %v", bad)
	}
	t.Logf("example.com/nolicence: %s", bad["example.com/nolicence"])
}

// An AGPL program built by a tools/ wrapper module fails too, though the
// main module does not import it.
func TestAGPLToolFails(t *testing.T) {
	rep := runGate(t, Gate{Root: fixture(t, nil, []string{"example.com/agpl/cmd/agpl"}), Env: fixtureEnv})
	bad := failures(rep)
	if len(bad) != 1 || !strings.Contains(bad["example.com/agpl"], "AGPL-3.0") {
		t.Fatalf("want example.com/agpl alone failing, got %v", bad)
	}
	f := rep.Failures()[0]
	if in := strings.Join(rep.In[f.Module.String()], ", "); !strings.HasPrefix(in, "tools/wrap ") {
		t.Errorf("example.com/agpl found in %q, want the tools/wrap graph", in)
	}
}

// The main module must carry the licence asked of it, alone.
func TestOwnLicence(t *testing.T) {
	rep := runGate(t, Gate{Root: fixture(t, nil, nil), Env: fixtureEnv, OwnLicence: "Apache-2.0"})
	bad := failures(rep)
	if len(bad) != 1 || !strings.Contains(bad["example.com/app"], "must be Apache-2.0") {
		t.Fatalf("an MIT main module passes as Apache-2.0: %v", bad)
	}
}

func TestLicenceFileNames(t *testing.T) {
	for name, want := range map[string]bool{
		"LICENSE": true, "LICENSE.md": true, "License.txt": true, "LICENSE-APACHE": true,
		"LICENCE": true, "COPYING": true, "COPYING.LESSER": true, "license": true,
		"license.go": false, "license_test.go": false, "NOTICE": false, "README.md": false,
	} {
		if got := licenceFile(name); got != want {
			t.Errorf("licenceFile(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestParseMakefile(t *testing.T) {
	mk := `VERSION := v1.2.3
# go install example.com/commented@v0 is no recipe
.tools/bin/a:
	GOBIN=x go install example.com/a/cmd/a@$(VERSION)
.tools/bin/b:
	go build -trimpath -o $@ ./cmd/b
.tools/bin/c:
	go build -trimpath -o $@ example.com/c
.tools/bin/d:
	cd tools/d && go build -trimpath -ldflags "-X example.com/d/version.Version=$(VERSION)" \
	  -o $(abspath $@) example.com/d/cmd/d
`
	b, err := ParseMakefile(mk)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.Installs, " "); got != "example.com/a/cmd/a@v1.2.3" {
		t.Errorf("installs: %q", got)
	}
	if got := strings.Join(b.Extra, " "); got != "example.com/c" {
		t.Errorf("extra builds: %q", got)
	}
	if got := strings.Join(b.Tools["d"], " "); got != "example.com/d/cmd/d" || len(b.Tools) != 1 {
		t.Errorf("tools builds: %v", b.Tools)
	}
	if _, err := ParseMakefile("x:\n\tgo install example.com/x@$(NOPE)\n"); err == nil {
		t.Error("an undefined version variable passes")
	}
}

// TestImbench is the gate itself: every module of every Go build imbench
// makes is under a permitted licence, and imbench's own is Apache-2.0.
func TestImbench(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	if _, err := os.Stat(filepath.Join(root, "LICENSE")); err != nil {
		t.Fatalf("imbench has no LICENSE at %s: %v", root, err)
	}
	rep := runGate(t, Gate{Root: root, OwnLicence: "Apache-2.0"})
	for _, gm := range rep.Graphs {
		t.Logf("%s: %d modules", gm.Graph.Name, len(gm.Modules))
	}
	for _, f := range rep.Findings {
		for _, n := range f.Notes {
			t.Logf("%s: reviewed %s", f.Module, n)
		}
	}
	bad := rep.Failures()
	for _, f := range bad {
		t.Errorf("%s: %s\n\tfound: %s\n\tin: %s", f.Module, f.Problem, f.Found(), strings.Join(rep.In[f.Module.String()], "; "))
	}
	t.Logf("%d modules checked, %d pass, %d fail", len(rep.Findings), len(rep.Findings)-len(bad), len(bad))
}
