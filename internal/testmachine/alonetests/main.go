// Command alonetests prints the go test arguments of make test's alone
// phase: -run with every test that calls testmachine.Alone, and their
// packages. It fails on a test name used in two such packages, whose
// -run would select both.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

func main() {
	tests, pkgs, err := find(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "alonetests:", err)
		os.Exit(1)
	}
	if len(tests) == 0 {
		fmt.Fprintln(os.Stderr, "alonetests: no test calls testmachine.Alone")
		os.Exit(1)
	}
	fmt.Printf("-run ^(%s)$ %s\n", strings.Join(tests, "|"), strings.Join(pkgs, " "))
}

// find walks the module under root (not tools/, nor dot folders) for tests
// that call testmachine.Alone.
func find(root string) (tests, pkgs []string, err error) {
	byName := map[string]string{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "tools" && filepath.Dir(path) == root || d.Name() == "testdata" || d.Name() == "results") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := "./" + filepath.ToSlash(filepath.Dir(path))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil || !callsAlone(fn.Body) {
				continue
			}
			if other, dup := byName[fn.Name.Name]; dup && other != pkg {
				return fmt.Errorf("%s is a test in %s and %s: rename one (go test -run selects both)", fn.Name.Name, other, pkg)
			}
			byName[fn.Name.Name] = pkg
			if !slices.Contains(pkgs, pkg) {
				pkgs = append(pkgs, pkg)
			}
		}
		return nil
	})
	for name := range byName {
		tests = append(tests, name)
	}
	sort.Strings(tests)
	sort.Strings(pkgs)
	return tests, pkgs, err
}

// callsAlone reports whether a test's body calls testmachine.Alone.
func callsAlone(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Alone" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "testmachine" {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
