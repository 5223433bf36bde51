package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, root, path, text string) {
	t.Helper()
	p := filepath.Join(root, path)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The alone phase selects exactly the tests that call testmachine.Alone,
// with their packages; tools/ and dot folders are other modules.
func TestFindsTheTestsThatRunAlone(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/a_test.go", "package a\nfunc TestTimed(t *testing.T) { testmachine.Alone(t); run() }\nfunc TestCounted(t *testing.T) { testmachine.Shared(t) }\n")
	write(t, root, "b/c/c_test.go", "package c\nfunc TestLater(t *testing.T) {\n\tif x {\n\t\ttestmachine.Alone(t)\n\t}\n}\nfunc helper(t *testing.T) { testmachine.Alone(t) }\n")
	write(t, root, "tools/x/x_test.go", "package x\nfunc TestTool(t *testing.T) { testmachine.Alone(t) }\n")
	write(t, root, ".run/y_test.go", "package y\nfunc TestRun(t *testing.T) { testmachine.Alone(t) }\n")
	tests, pkgs, err := find(root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tests, []string{"TestLater", "TestTimed"}) || len(pkgs) != 2 || !strings.HasSuffix(pkgs[0], "/a") || !strings.HasSuffix(pkgs[1], "/b/c") {
		t.Fatalf("tests %q, packages %q", tests, pkgs)
	}
	write(t, root, "d/d_test.go", "package d\nfunc TestTimed(t *testing.T) { testmachine.Alone(t) }\n")
	if _, _, err := find(root); err == nil || !strings.Contains(err.Error(), "TestTimed is a test in") {
		t.Fatalf("a name in two packages: %v", err)
	}
}
