package report

import (
	"fmt"
	"strings"
)

// Markdown renders report.md.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", r.title())
	for _, s := range r.sections() {
		if s.Title != "" {
			fmt.Fprintf(&b, "\n## %s\n", s.Title)
		}
		for _, p := range s.Paras {
			fmt.Fprintf(&b, "\n%s\n", p)
		}
		for _, t := range s.Tables {
			b.WriteString("\n")
			writeMDRow(&b, t.Head)
			sep := make([]string, len(t.Head))
			for i := range sep {
				sep[i] = "---"
			}
			writeMDRow(&b, sep)
			for _, row := range t.Rows {
				writeMDRow(&b, row)
			}
		}
	}
	if r.Series != nil {
		b.WriteString("\n## Charts\n\nIn report.html: ")
		var names []string
		for _, c := range r.Series.Charts {
			names = append(names, c.Title)
		}
		b.WriteString(strings.Join(names, ", ") + ".\n")
	}
	return b.String()
}

func writeMDRow(b *strings.Builder, cells []string) {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	b.WriteString("| " + strings.Join(esc, " | ") + " |\n")
}
