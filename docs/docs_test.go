package docs

import (
	"bufio"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// root is the repository, seen from this folder (go test runs in it).
const root = ".."

// Every relative link of the README, docs/ and runbooks/ leads to a file
// or folder of the repository, and a link to a heading of a page (its
// #anchor, as GitHub makes them) to one that page has.
func TestLinksResolve(t *testing.T) {
	files, err := markdownFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range checkLinks(root, files) {
		t.Error(p)
	}
}

// Every `make <target>` those pages name in code is a target of the
// Makefile.
func TestMakeTargetsExist(t *testing.T) {
	files, err := markdownFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	targets, err := makeTargets(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range checkMakeTargets(root, files, targets) {
		t.Error(p)
	}
}

// The checks fail where they should, each problem at its file and line: a
// missing file, a missing heading, a missing target; and pass what is there.
func TestChecksReportWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		f := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Makefile", ".PHONY: up down\nup:\n\t@true\nVAR := x\nrun-scenario: up\n\t@true\n")
	write("README.md", strings.Join([]string{
		"# A project",
		"[fine](docs/a.md), [a folder](docs/), [on the web](https://example.com/x.md)",
		"[gone](docs/missing.md) and [no heading](docs/a.md#nowhere)",
		"[a heading](docs/a.md#the-a-page-its-first) and [`code` text](docs/a.md#second)",
		"```sh",
		"make up && make run-scenario SCENARIO=x   # [not a link](nowhere.md)",
		"make nosuch",
		"```",
		"Run `make down`, then `make",
		"alsonot` (a span over two lines); make prose is not code.",
		"[outside](../elsewhere.md)",
	}, "\n"))
	write("docs/a.md", "# The A page: its first\n\nBack [up](../README.md), [here](#nowhere-here).\n\n## Second\n\n```\n# not a heading\n```\n")
	files, err := markdownFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, []string{"README.md", "docs/a.md"}) {
		t.Fatalf("files: %v", files)
	}
	var got []string
	for _, p := range checkLinks(dir, files) {
		got = append(got, p.String())
	}
	want := []string{
		`README.md:3: link "docs/missing.md": no such file or folder`,
		`README.md:3: link "docs/a.md#nowhere": docs/a.md has no heading "nowhere"`,
		`README.md:11: link "../elsewhere.md": outside the repository`,
		`docs/a.md:3: link "#nowhere-here": docs/a.md has no heading "nowhere-here"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("links:\n got %q\nwant %q", got, want)
	}
	targets, err := makeTargets(filepath.Join(dir, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(slices.Sorted(maps.Keys(targets)), []string{"down", "run-scenario", "up"}) {
		t.Errorf("targets: %v", targets)
	}
	got = nil
	for _, p := range checkMakeTargets(dir, files, targets) {
		got = append(got, p.String())
	}
	want = []string{
		`README.md:7: make nosuch: no such target in the Makefile`,
		`README.md:10: make alsonot: no such target in the Makefile`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("targets:\n got %q\nwant %q", got, want)
	}
}

// problem is one bad link or target, at its file (relative to the
// repository) and line.
type problem struct {
	file string
	line int
	msg  string
}

func (p problem) String() string { return fmt.Sprintf("%s:%d: %s", p.file, p.line, p.msg) }

// markdownFiles lists README.md and every .md under docs/ and runbooks/,
// slash-separated and relative to the repository, in order.
func markdownFiles(repo string) ([]string, error) {
	out := []string{"README.md"}
	for _, dir := range []string{"docs", "runbooks"} {
		err := filepath.WalkDir(filepath.Join(repo, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			rel, err := filepath.Rel(repo, p)
			out = append(out, filepath.ToSlash(rel))
			return err
		})
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	return out, nil
}

// page is a markdown file taken apart: its prose with the fenced blocks
// blanked (line for line, so that an offset still gives its line), the
// fenced blocks' lines, and its inline code spans.
type page struct {
	prose    string
	fenced   []numbered
	spans    []numbered // each span's text, at the line it starts on
	headings []string   // their anchors, in order, numbered as GitHub numbers repeats
}

type numbered struct {
	line int
	text string
}

var (
	fenceRE   = regexp.MustCompile("^\\s*(`{3,}|~{3,})")
	headingRE = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	inlineRE  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

func readPage(file string) (*page, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	p := &page{}
	var prose []string
	fence := ""
	seen := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1]
				prose = append(prose, "")
				continue
			case m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(line) == m[1]:
				fence = ""
				prose = append(prose, "")
				continue
			}
		}
		if fence != "" {
			p.fenced = append(p.fenced, numbered{n, line})
			prose = append(prose, "")
			continue
		}
		prose = append(prose, line)
		if m := headingRE.FindStringSubmatch(line); m != nil {
			a := slug(m[1])
			if k := seen[a]; k > 0 {
				seen[a]++
				a = fmt.Sprintf("%s-%d", a, k)
			} else {
				seen[a] = 1
			}
			p.headings = append(p.headings, a)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	p.prose = strings.Join(prose, "\n")
	p.spans, p.prose = codeSpans(p.prose)
	return p, nil
}

// slug is a heading's anchor as GitHub makes it: the text as rendered
// (links by their text), lower case, spaces as '-', punctuation other than
// '-' and '_' dropped.
func slug(heading string) string {
	heading = inlineRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// codeSpans finds the inline code spans of prose (a run of backticks up to
// the next run of the same length, within a paragraph); it returns them
// and prose with their text blanked, newlines kept.
func codeSpans(prose string) ([]numbered, string) {
	var spans []numbered
	out := []byte(prose)
	run := func(i int) int {
		j := i
		for j < len(prose) && prose[j] == '`' {
			j++
		}
		return j - i
	}
	for i := 0; i < len(prose); {
		if prose[i] != '`' {
			i++
			continue
		}
		n := run(i)
		start := i + n
		end := -1
		for j := start; j < len(prose); {
			if prose[j] != '`' {
				j++
				continue
			}
			if m := run(j); m == n {
				end = j
				break
			} else {
				j += m
			}
		}
		if end < 0 || strings.Contains(prose[start:end], "\n\n") {
			i = start // literal backticks
			continue
		}
		spans = append(spans, numbered{1 + strings.Count(prose[:start], "\n"), prose[start:end]})
		for k := start; k < end; k++ {
			if out[k] != '\n' {
				out[k] = ' '
			}
		}
		i = end + n
	}
	return spans, string(out)
}

var (
	linkRE   = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refDefRE = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	makeRE   = regexp.MustCompile("(?:^|[\\s;&|(])make\\s+([a-z][a-z0-9-]*)")
	ruleRE   = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.-]*(?:[ \t]+[A-Za-z0-9][A-Za-z0-9_.-]*)*)[ \t]*::?(?:[^=]|$)`)
	phonyRE  = regexp.MustCompile(`^\.PHONY[ \t]*:(.*)$`)
)

// lineStart is the line of an offset in text.
func lineStart(text string, offset int) int { return 1 + strings.Count(text[:offset], "\n") }

// checkLinks checks every relative link of files (relative to repo).
func checkLinks(repo string, files []string) []problem {
	var out []problem
	pages := map[string]*page{}
	load := func(rel string) (*page, error) {
		if p, ok := pages[rel]; ok {
			return p, nil
		}
		p, err := readPage(filepath.Join(repo, filepath.FromSlash(rel)))
		pages[rel] = p
		return p, err
	}
	for _, file := range files {
		pg, err := load(file)
		if err != nil {
			out = append(out, problem{file, 0, err.Error()})
			continue
		}
		var links []numbered
		for _, re := range []*regexp.Regexp{linkRE, refDefRE} {
			for _, m := range re.FindAllStringSubmatchIndex(pg.prose, -1) {
				links = append(links, numbered{lineStart(pg.prose, m[2]), pg.prose[m[2]:m[3]]})
			}
		}
		slices.SortStableFunc(links, func(a, b numbered) int { return a.line - b.line })
		for _, l := range links {
			if schemeRE.MatchString(l.text) {
				continue // http:, https:, mailto: and the like
			}
			bad := func(format string, args ...any) {
				out = append(out, problem{file, l.line, fmt.Sprintf("link %q: ", l.text) + fmt.Sprintf(format, args...)})
			}
			target, anchor, _ := strings.Cut(l.text, "#")
			target, err := url.PathUnescape(target)
			if err != nil {
				bad("%v", err)
				continue
			}
			switch {
			case target == "":
				target = file
			case strings.HasPrefix(target, "/"): // GitHub reads it from the repository's root
				target = path.Clean(strings.TrimPrefix(target, "/"))
			default:
				target = path.Join(path.Dir(file), target)
			}
			if target == ".." || strings.HasPrefix(target, "../") {
				bad("outside the repository")
				continue
			}
			info, err := os.Stat(filepath.Join(repo, filepath.FromSlash(target)))
			if err != nil {
				bad("no such file or folder")
				continue
			}
			if anchor == "" || info.IsDir() || !strings.HasSuffix(target, ".md") {
				continue
			}
			tp, err := load(target)
			if err != nil {
				bad("%v", err)
				continue
			}
			if !slices.Contains(tp.headings, strings.ToLower(anchor)) {
				bad("%s has no heading %q", target, anchor)
			}
		}
	}
	return out
}

// makeTargets reads a Makefile's targets: every rule's names and every
// name .PHONY lists.
func makeTargets(makefile string) (map[string]bool, error) {
	raw, err := os.ReadFile(makefile)
	if err != nil {
		return nil, err
	}
	targets := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n") {
		if m := phonyRE.FindStringSubmatch(line); m != nil {
			for _, name := range strings.Fields(m[1]) {
				targets[name] = true
			}
			continue
		}
		if m := ruleRE.FindStringSubmatch(line); m != nil {
			for _, name := range strings.Fields(m[1]) {
				targets[name] = true
			}
		}
	}
	return targets, nil
}

// notTargets are words that follow "make" in the pages' code without
// being a target: none so far. A word goes here only when it is plainly
// English in a code comment, never to hide a target that went missing.
var notTargets = map[string]bool{}

// checkMakeTargets checks every `make <target>` in the fenced blocks and
// inline code of files against the Makefile's targets.
func checkMakeTargets(repo string, files []string, targets map[string]bool) []problem {
	var out []problem
	for _, file := range files {
		pg, err := readPage(filepath.Join(repo, filepath.FromSlash(file)))
		if err != nil {
			out = append(out, problem{file, 0, err.Error()})
			continue
		}
		for _, code := range append(slices.Clone(pg.fenced), pg.spans...) {
			for _, m := range makeRE.FindAllStringSubmatchIndex(code.text, -1) {
				name := code.text[m[2]:m[3]]
				if targets[name] || notTargets[name] {
					continue
				}
				line := code.line + strings.Count(code.text[:m[2]], "\n")
				out = append(out, problem{file, line, fmt.Sprintf("make %s: no such target in the Makefile", name)})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b problem) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		return a.line - b.line
	})
	return out
}

// The worked example shown in workloads.md is the file make test runs
// (cmd/imbench/example_test.go), past its header comment.
func TestTheWorkedExampleIsTheFile(t *testing.T) {
	src, err := os.ReadFile("examples/my-workload.js")
	if err != nil {
		t.Fatal(err)
	}
	code := string(src)
	if i := strings.Index(code, "import "); i > 0 {
		code = code[i:]
	}
	page, err := os.ReadFile("workloads.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "```js\n"+code+"```") {
		t.Error("workloads.md's worked example is not docs/examples/my-workload.js as it stands")
	}
}
