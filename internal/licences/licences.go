// Package licences checks that every Go module imbench builds into a binary
// is under a permissive licence. imbench is Apache-2.0 and takes only
// dependencies anyone may run, change and ship with it; see Allowed.
//
// The graph comes from the go command itself (go list -deps), so it is what
// a build for this GOOS/GOARCH links, and each module's licence file is
// classified with github.com/google/licensecheck. The test of this package
// runs the check over imbench's own graph: the main module (tests included),
// every wrapper module under tools/, and what the Makefile installs with
// `go install pkg@version`.
package licences

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/build"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/google/licensecheck"
)

// Allowed lists the licence IDs (licensecheck's, which are SPDX ids) a
// dependency may carry: imbench's policy, in one place. A clearly
// permissive equivalent found in a real dependency (MIT-0, 0BSD, CC0-1.0,
// Unlicense) would be added here with a comment naming the module; none is
// in the graph today.
var Allowed = map[string]string{
	"MIT":          "policy",
	"BSD-2-Clause": "policy",
	"BSD-3-Clause": "policy",
	"Apache-2.0":   "policy",
	"ISC":          "policy",
	"MPL-2.0":      "policy: file-level copyleft only, fine to link and ship unmodified",
}

// reviewed are licence files beside a module's own licence that are not
// licences of the code a build includes, each read by hand. One is accepted
// only while licensecheck finds exactly ids in it (none: "") so that a new
// version that changes it is read again. The module must still have a
// licence file of its own that passes.
var reviewed = []struct {
	module, file, ids, why string
}{
	{"github.com/opencontainers/go-digest", "LICENSE.docs", "CC-BY-SA-4.0",
		"covers its documentation, which no build includes; its code is under LICENSE (Apache-2.0)"},
}

func reviewedWhy(module, file string, ids []string) (string, bool) {
	for _, r := range reviewed {
		if r.module == module && r.file == file && r.ids == strings.Join(ids, "+") {
			return r.why, true
		}
	}
	return "", false
}

// minCoverage is how much of a licence file, in percent of its words, the
// recognised licences must cover. Below it the file says something
// licensecheck does not know (extra terms, a source-available clause), and
// the module fails as "unknown" rather than passing on the part that was
// recognised. Copyright lines, headings and appended notices count against
// it: the permissive files in imbench's graphs score 83 to 100.
const minCoverage = 75

// Module is one module of a build graph.
type Module struct {
	Path    string
	Version string
	Dir     string // where its files are: the module cache, or a replacement directory
	Replace string // "path version" or a directory when replaced, else ""
	Main    bool   // the main module of the graph it was found in
}

func (m Module) String() string {
	s := m.Path
	if m.Version != "" {
		s += " " + m.Version
	}
	if m.Replace != "" {
		s += " => " + m.Replace
	}
	return s
}

// Finding is what the licence files of one module were classified as.
type Finding struct {
	Module Module
	Files  map[string][]string // licence file name → licence ids found in it
	// Notes are reviewed files accepted (see reviewed).
	Notes []string
	// Problem is empty when the module passes, else why it does not.
	Problem string
}

// licenceFile reports whether name is a licence file by its name: LICENSE*,
// LICENCE* or COPYING*, any case (LICENSE, LICENSE.md, License.txt,
// LICENSE-APACHE, COPYING.LESSER, ...), but not Go source (license.go).
func licenceFile(name string) bool {
	u := strings.ToUpper(name)
	if strings.HasSuffix(u, ".GO") {
		return false
	}
	return strings.HasPrefix(u, "LICENSE") || strings.HasPrefix(u, "LICENCE") || strings.HasPrefix(u, "COPYING")
}

// Classification of one file's text.
type Classification struct {
	IDs      []string // licence ids found, in order, each once
	Coverage float64  // percent of the text they cover
}

// Classify runs licensecheck over one licence file's text.
func Classify(text []byte) Classification {
	cov := licensecheck.Scan(text)
	var c Classification
	seen := map[string]bool{}
	for _, m := range cov.Match {
		if !seen[m.ID] {
			seen[m.ID] = true
			c.IDs = append(c.IDs, m.ID)
		}
	}
	c.Coverage = cov.Percent
	return c
}

// problem says why a file's classification is not acceptable, or "".
func (c Classification) problem() string {
	if len(c.IDs) == 0 {
		return "unknown licence (licensecheck recognises nothing in it)"
	}
	var bad []string
	for _, id := range c.IDs {
		if _, ok := Allowed[id]; !ok {
			bad = append(bad, id)
		}
	}
	if len(bad) > 0 {
		return "not a permitted licence: " + strings.Join(bad, ", ")
	}
	if c.Coverage < minCoverage {
		return fmt.Sprintf("unknown licence text: %s covers only %.0f%% of the file", strings.Join(c.IDs, "+"), c.Coverage)
	}
	return ""
}

var (
	scanMu    sync.Mutex
	scanCache = map[string]Finding{} // by module directory
)

// CheckModule finds the licence files in the root of m.Dir and classifies
// each. Every licence file must be permissive; a module with none fails.
func CheckModule(m Module) Finding {
	scanMu.Lock()
	f, ok := scanCache[m.Dir]
	scanMu.Unlock()
	if ok {
		f.Module = m
		return f
	}
	f = checkModule(m)
	scanMu.Lock()
	scanCache[m.Dir] = f
	scanMu.Unlock()
	return f
}

func checkModule(m Module) Finding {
	f := Finding{Module: m, Files: map[string][]string{}}
	if m.Dir == "" {
		f.Problem = "not in the module cache (go mod download failed)"
		return f
	}
	entries, err := os.ReadDir(m.Dir)
	if err != nil {
		f.Problem = "cannot read its directory: " + err.Error()
		return f
	}
	var problems []string
	own := 0 // licence files of its own that pass
	for _, e := range entries {
		if !licenceFile(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		text, err := os.ReadFile(filepath.Join(m.Dir, e.Name()))
		if err != nil {
			problems = append(problems, e.Name()+": "+err.Error())
			continue
		}
		c := Classify(text)
		f.Files[e.Name()] = c.IDs
		if why, ok := reviewedWhy(m.Path, e.Name(), c.IDs); ok {
			f.Notes = append(f.Notes, e.Name()+": "+why)
			continue
		}
		if p := c.problem(); p != "" {
			problems = append(problems, e.Name()+": "+p)
			continue
		}
		own++
	}
	switch {
	case len(problems) > 0:
		f.Problem = strings.Join(problems, "; ")
	case own == 0:
		f.Problem = "no licence file (LICENSE*, LICENCE* or COPYING*) in " + m.Dir
	}
	return f
}

// Found is a short description of what a finding's files hold:
// "LICENSE: MIT; LICENSE-APACHE: Apache-2.0".
func (f Finding) Found() string {
	if len(f.Files) == 0 {
		return "no licence file"
	}
	var names []string
	for n := range f.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		ids := strings.Join(f.Files[n], "+")
		if ids == "" {
			ids = "nothing recognised"
		}
		parts = append(parts, n+": "+ids)
	}
	return strings.Join(parts, "; ")
}

// goCmd runs the go command in dir and returns its standard output.
func goCmd(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

type listedModule struct {
	Path    string
	Version string
	Dir     string
	Main    bool
	Replace *struct {
		Path    string
		Version string
		Dir     string
	}
	Error *struct{ Err string }
}

type listedPackage struct {
	ImportPath string
	Module     *listedModule
}

// listKey identifies one go list run.
type listKey struct {
	dir  string
	args string
}

type listResult struct {
	once sync.Once
	mods []Module
	err  error
}

var (
	listMu    sync.Mutex
	listCache = map[listKey]*listResult{}
)

// List returns the modules of the packages `go list -deps -json args...`
// names when run in dir: every module that provides a package to that
// build, sorted by path. The standard library is not a module and is not
// listed. Results are cached for the life of the process.
func List(ctx context.Context, dir string, env []string, args ...string) ([]Module, error) {
	key := listKey{dir, strings.Join(env, "\x00") + "\x01" + strings.Join(args, "\x00")}
	listMu.Lock()
	r := listCache[key]
	if r == nil {
		r = &listResult{}
		listCache[key] = r
	}
	listMu.Unlock()
	r.once.Do(func() { r.mods, r.err = list(ctx, dir, env, args) })
	return r.mods, r.err
}

func list(ctx context.Context, dir string, env []string, args []string) ([]Module, error) {
	out, err := goCmd(ctx, dir, env, append([]string{"list", "-deps", "-json=ImportPath,Module"}, args...)...)
	if err != nil {
		return nil, err
	}
	byPath := map[string]Module{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list in %s: decoding its output: %v", dir, err)
		}
		if p.Module == nil {
			continue // the standard library
		}
		lm := p.Module
		m := Module{Path: lm.Path, Version: lm.Version, Dir: lm.Dir, Main: lm.Main}
		if lm.Replace != nil {
			m.Replace = strings.TrimSpace(lm.Replace.Path + " " + lm.Replace.Version)
			if lm.Replace.Dir != "" {
				m.Dir = lm.Replace.Dir
			}
		}
		if m.Dir == "" {
			// Not in the module cache: fetch it (outside any module, so
			// no go.mod or go.sum is touched) and use where it landed.
			path, version := lm.Path, lm.Version
			if lm.Replace != nil {
				path, version = lm.Replace.Path, lm.Replace.Version
			}
			m.Dir, err = download(ctx, path, version)
			if err != nil {
				return nil, fmt.Errorf("module %s: %v", m, err)
			}
		}
		byPath[m.Path] = m
	}
	mods := make([]Module, 0, len(byPath))
	for _, m := range byPath {
		mods = append(mods, m)
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	return mods, nil
}

// download puts path@version into the module cache and returns its directory.
func download(ctx context.Context, path, version string) (string, error) {
	if version == "" {
		return "", fmt.Errorf("no version to download")
	}
	tmp, err := os.MkdirTemp("", "licences-download-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	out, err := goCmd(ctx, tmp, nil, "mod", "download", "-json", path+"@"+version)
	if err != nil {
		return "", err
	}
	var d struct{ Dir, Error string }
	if err := json.Unmarshal(out, &d); err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %v", path, version, err)
	}
	if d.Error != "" || d.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: %s", path, version, d.Error)
	}
	return d.Dir, nil
}

// ToolImports returns what the tools.go of a wrapper module imports under
// the `tools` build tag: the commands that module exists to build. They are
// read from the files rather than with `go list -tags tools -deps`, because
// that tag would also switch on the tools.go files of dependencies (arrow-go
// and others have one) and list, or fail on, packages no build of the
// commands includes.
func ToolImports(dir string) ([]string, error) {
	ctx := build.Default
	ctx.BuildTags = append([]string{"tools"}, ctx.BuildTags...)
	pkg, err := ctx.ImportDir(dir, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", dir, err)
	}
	if len(pkg.Imports) == 0 {
		return nil, fmt.Errorf("%s: its tools build imports nothing", dir)
	}
	return pkg.Imports, nil
}

// ToolModules returns the directories of the wrapper modules: tools/*/go.mod.
func ToolModules(root string) ([]string, error) {
	gomods, err := filepath.Glob(filepath.Join(root, "tools", "*", "go.mod"))
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, g := range gomods {
		dirs = append(dirs, filepath.Dir(g))
	}
	sort.Strings(dirs)
	return dirs, nil
}

// MakeBuilds is what the Makefile builds with the go command beyond the
// main module's own packages.
type MakeBuilds struct {
	// Installs are `go install pkg@version` commands, version resolved.
	Installs []string
	// Extra are packages outside the main module a recipe in the main
	// module builds (go build go.k6.io/k6).
	Extra []string
	// Tools maps a tools/ directory name to the packages built in it.
	Tools map[string][]string
}

var (
	makeVarRE     = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*[:?]?=\s*(\S+)\s*$`)
	goInstallRE   = regexp.MustCompile(`\bgo install\b[^;&|]*?\s(\S+)@(\S+)`)
	goBuildRE     = regexp.MustCompile(`\bgo build\b([^;&|]*)`)
	cdToolsRE     = regexp.MustCompile(`\bcd tools/([^ /;&]+)\s*&&`)
	makeVarRefRE  = regexp.MustCompile(`^\$\(([A-Za-z_][A-Za-z0-9_]*)\)$`)
	pathLikeArgRE = regexp.MustCompile(`^[a-z0-9][-a-z0-9.]*\.[a-z]+(/[-A-Za-z0-9._~/]*)?$`)
)

// ParseMakefile finds the go install and go build commands of a Makefile.
// Continuation lines are joined first.
func ParseMakefile(text string) (MakeBuilds, error) {
	text = strings.ReplaceAll(text, "\\\n", " ")
	vars := map[string]string{}
	b := MakeBuilds{Tools: map[string][]string{}}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var lines []string
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if m := makeVarRE.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "\t") {
			vars[m[1]] = m[2]
		}
		lines = append(lines, line)
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, "\t") {
			continue
		}
		for _, m := range goInstallRE.FindAllStringSubmatch(line, -1) {
			version := m[2]
			if v := makeVarRefRE.FindStringSubmatch(version); v != nil {
				val, ok := vars[v[1]]
				if !ok {
					return b, fmt.Errorf("Makefile: %s: variable %s not defined", strings.TrimSpace(line), v[1])
				}
				version = val
			}
			b.Installs = append(b.Installs, m[1]+"@"+version)
		}
		tools := ""
		if m := cdToolsRE.FindStringSubmatch(line); m != nil {
			tools = m[1]
		}
		for _, m := range goBuildRE.FindAllStringSubmatch(line, -1) {
			for _, arg := range strings.Fields(m[1]) {
				if !pathLikeArgRE.MatchString(arg) {
					continue // flags, flag values, ./relative packages
				}
				if tools != "" {
					b.Tools[tools] = append(b.Tools[tools], arg)
				} else {
					b.Extra = append(b.Extra, arg)
				}
			}
		}
	}
	return b, nil
}

// Graph is one build whose modules are checked: the go command is run in
// Dir as `go list -deps Args...`.
type Graph struct {
	Name string
	Dir  string
	Args []string
	// prepare, if set, makes the directory to run in (for go install
	// pkg@version: a throwaway module that requires pkg's module at that
	// version).
	prepare func(ctx context.Context) (string, error)
}

// Gate is the licence check over one main module and what its Makefile and
// tools/ directory build.
type Gate struct {
	Root string // the main module's directory
	// OwnLicence, when set, is the one licence id the main module's own
	// licence file must carry (imbench: Apache-2.0).
	OwnLicence string
	// Env is added to the go command's environment.
	Env []string
}

// Graphs returns the builds to check: the main module's packages with
// their tests; each tools/*/go.mod module with the commands its tools.go
// imports; and, from the Makefile if there is one, packages outside the
// main module a recipe builds and each `go install pkg@version`.
func (g Gate) Graphs(ctx context.Context) ([]Graph, error) {
	graphs := []Graph{{Name: "main module (./... with tests)", Dir: g.Root, Args: []string{"-test", "./..."}}}
	var mk MakeBuilds
	if text, err := os.ReadFile(filepath.Join(g.Root, "Makefile")); err == nil {
		if mk, err = ParseMakefile(string(text)); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if len(mk.Extra) > 0 {
		graphs = append(graphs, Graph{Name: "Makefile: go build " + strings.Join(mk.Extra, " "), Dir: g.Root, Args: mk.Extra})
	}
	dirs, err := ToolModules(g.Root)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		seen[name] = true
		imports, err := ToolImports(dir)
		if err != nil {
			return nil, err
		}
		// What the Makefile builds there must be among them, or the gate
		// would not see it.
		for _, pkg := range mk.Tools[name] {
			if !contains(imports, pkg) {
				return nil, fmt.Errorf("the Makefile builds %s in tools/%s, which its tools.go does not import: add it there so this check covers it", pkg, name)
			}
		}
		graphs = append(graphs, Graph{Name: "tools/" + name + " (" + strings.Join(imports, " ") + ")", Dir: dir, Args: imports})
	}
	for name := range mk.Tools {
		if !seen[name] {
			return nil, fmt.Errorf("the Makefile builds in tools/%s, which has no go.mod", name)
		}
	}
	for _, spec := range mk.Installs {
		graphs = append(graphs, installGraph(spec, g.Env))
	}
	return graphs, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var (
	installMu   sync.Mutex
	installDirs = map[string]*installDir{}
)

type installDir struct {
	once sync.Once
	dir  string
	err  error
}

// installGraph is `go install pkg@version`: its build list is that of
// pkg's module at version as the main module, which is what a throwaway
// module requiring it (and nothing else) selects.
func installGraph(spec string, env []string) Graph {
	pkg, version, _ := strings.Cut(spec, "@")
	g := Graph{Name: "Makefile: go install " + spec, Args: []string{pkg}}
	installMu.Lock()
	d := installDirs[spec]
	if d == nil {
		d = &installDir{}
		installDirs[spec] = d
	}
	installMu.Unlock()
	g.prepare = func(ctx context.Context) (string, error) {
		d.once.Do(func() {
			d.dir, d.err = os.MkdirTemp("", "licences-install-")
			if d.err != nil {
				return
			}
			d.err = os.WriteFile(filepath.Join(d.dir, "go.mod"), []byte("module imbench.local/licences/install\n"), 0o644)
			if d.err != nil {
				return
			}
			_, d.err = goCmd(ctx, d.dir, env, "get", pkg+"@"+version)
		})
		return d.dir, d.err
	}
	return g
}

// Cleanup removes the throwaway modules made for go install commands.
func Cleanup() {
	installMu.Lock()
	defer installMu.Unlock()
	for spec, d := range installDirs {
		if d.dir != "" {
			os.RemoveAll(d.dir)
		}
		delete(installDirs, spec)
	}
}

// GraphModules is the module list of one graph.
type GraphModules struct {
	Graph   Graph
	Modules []Module
}

// Report is the outcome of a gate run.
type Report struct {
	Graphs []GraphModules
	// Findings has one entry per module path and version over all graphs,
	// sorted; In says which graphs each came from.
	Findings []Finding
	In       map[string][]string // Module.String() → graph names
}

// Failures are the findings with a problem.
func (r Report) Failures() []Finding {
	var bad []Finding
	for _, f := range r.Findings {
		if f.Problem != "" {
			bad = append(bad, f)
		}
	}
	return bad
}

// Run lists every graph (two at a time) and classifies every module.
func (g Gate) Run(ctx context.Context) (Report, error) {
	graphs, err := g.Graphs(ctx)
	if err != nil {
		return Report{}, err
	}
	results := make([]GraphModules, len(graphs))
	errs := make([]error, len(graphs))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, gr := range graphs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if gr.prepare != nil {
				dir, err := gr.prepare(ctx)
				if err != nil {
					errs[i] = fmt.Errorf("%s: %v", gr.Name, err)
					return
				}
				gr.Dir = dir
			}
			mods, err := List(ctx, gr.Dir, g.Env, gr.Args...)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %v", gr.Name, err)
				return
			}
			results[i] = GraphModules{Graph: gr, Modules: mods}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Report{}, err
	}
	rep := Report{Graphs: results, In: map[string][]string{}}
	byKey := map[string]Finding{}
	for _, gm := range results {
		for _, m := range gm.Modules {
			key := m.String()
			rep.In[key] = append(rep.In[key], gm.Graph.Name)
			if _, ok := byKey[key]; ok {
				continue
			}
			f := CheckModule(m)
			if m.Main && filepath.Clean(m.Dir) == filepath.Clean(g.Root) && g.OwnLicence != "" {
				f = ownLicence(f, g.OwnLicence)
			}
			byKey[key] = f
		}
	}
	for _, f := range byKey {
		rep.Findings = append(rep.Findings, f)
	}
	sort.Slice(rep.Findings, func(i, j int) bool { return rep.Findings[i].Module.String() < rep.Findings[j].Module.String() })
	return rep, nil
}

// ownLicence requires the main module to carry exactly one licence, want.
func ownLicence(f Finding, want string) Finding {
	if f.Problem != "" {
		return f
	}
	for name, ids := range f.Files {
		if len(ids) != 1 || ids[0] != want {
			f.Problem = fmt.Sprintf("the main module's %s must be %s alone, found %s", name, want, strings.Join(ids, "+"))
			return f
		}
	}
	return f
}
