// Package prometheus holds imbench's Prometheus configuration and rules;
// promtool checks and tests them (tests/). These Go tests check what
// promtool cannot: that alerts lead to their runbooks and that every system
// under test carries the labels the rules select on.
package prometheus

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"gopkg.in/yaml.v3"
)

type ruleFile struct {
	Groups []struct {
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

// Every alert's runbook_url is runbooks/<file>.md#<alert in lower case>,
// relative to the repository, and that file has the heading.
func TestAlertsLeadToTheirRunbooks(t *testing.T) {
	files, _ := filepath.Glob("rules/*.yml")
	alerts := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rf ruleFile
		if err := yaml.Unmarshal(raw, &rf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				if r.Alert == "" {
					continue
				}
				alerts++
				url := r.Annotations["runbook_url"]
				path, anchor, _ := strings.Cut(url, "#")
				if !strings.HasPrefix(path, "runbooks/") || !strings.HasSuffix(path, ".md") || anchor != strings.ToLower(r.Alert) {
					t.Errorf("%s: alert %s has runbook_url %q, want runbooks/<file>.md#%s", f, r.Alert, url, strings.ToLower(r.Alert))
					continue
				}
				md, err := os.ReadFile(filepath.Join("..", path))
				if err != nil {
					t.Errorf("%s: alert %s: %v", f, r.Alert, err)
					continue
				}
				if !slices.Contains(anchors(string(md)), anchor) {
					t.Errorf("%s: alert %s: %s has no heading with anchor #%s", f, r.Alert, path, anchor)
				}
			}
		}
	}
	if alerts == 0 {
		t.Fatal("no alerts in rules/*.yml")
	}
}

var heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

// anchors lists the ids GitHub gives a Markdown file's headings.
func anchors(md string) []string {
	var out []string
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		m := heading.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		id := slug(m[1])
		if n := seen[id]; n > 0 {
			out = append(out, id+"-"+strconv.Itoa(n))
		} else {
			out = append(out, id)
		}
		seen[id]++
	}
	return out
}

// slug is GitHub's heading id: lower case, spaces to hyphens, every other
// character but letters, digits, hyphens and underscores dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestAnchorsAreGitHubs(t *testing.T) {
	md := "# Runbook: imbench's alerts\n## ImbenchDeliveriesLost\n```sh\n# not a heading\n```\n" +
		"## Test 2: 50,000 online users — not yet a scenario\n## Before you start\n## Before you start\n"
	want := []string{"runbook-imbenchs-alerts", "imbenchdeliverieslost",
		"test-2-50000-online-users--not-yet-a-scenario", "before-you-start", "before-you-start-1"}
	if got := anchors(md); !slices.Equal(got, want) {
		t.Fatalf("anchors %q, want %q", got, want)
	}
}
