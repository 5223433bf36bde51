package report

import (
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/summary"
)

// An outage's row: when, how many, back after, reconnects and their peak,
// and the target's CPU summed over its components at the samples around it.
func TestOutagesSectionGivesTheStormAndTheTargetCPU(t *testing.T) {
	s := sampleSummary()
	w := summary.Outage{Start: t0.Add(20 * time.Second), End: t0.Add(21300 * time.Millisecond), Dropped: 1000, Reconnects: 1000,
		ReconnectsPerSecond: []int64{510, 490}}
	w.Finish()
	s.Outages = &summary.Outages{Windows: []summary.Outage{w}}
	s.Warnings = []string{"segment(s) 1/3:2/3 of 3 wrote no summary"}
	series := sampleSeries()
	for i := range series.Charts {
		if series.Charts[i].Title == "CPU per component" {
			series.Charts[i].Lines = []Line{line("openim-msggateway", 100), line("openim-msgtransfer", 50), line("imbench", 400)}
		}
	}
	md := (&Report{Summary: s, Series: series}).Markdown()
	for _, want := range []string{
		"| +20.0 s (" + w.Start.UTC().Format("15:04:05") + " UTC) | 1,000 | 1.3 s | 1,000 | 510 | 150 % peak |",
		"segment(s) 1/3:2/3 of 3 wrote no summary",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains((&Report{Summary: sampleSummary()}).Markdown(), "## Outages") {
		t.Error("a run without outages has an Outages section")
	}
}
