package report

import (
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/summary"
)

func TestResultsCarryLoginFailures(t *testing.T) {
	clean := (&Report{Summary: sampleSummary()}).Markdown()
	if !strings.Contains(clean, "| Login Failures | 0 failed, 0 retried; 0 users never online |") ||
		strings.Contains(clean, "pushed after") {
		t.Errorf("a clean run's login row:\n%s", clean)
	}
	s := sampleSummary()
	s.Users.LoginFailures = &summary.LoginCauses{Closed: 2, NoAnswer: 1}
	s.Users.LoginRetries = &summary.LoginCauses{Closed: 2}
	s.Users.OnlineAfterRetry, s.Users.NeverOnline = 1, 1
	s.Deliveries.NotAttempted, s.Deliveries.PushedAfterPull = 1250, 7
	md := (&Report{Summary: s}).Markdown()
	for _, want := range []string{
		"| Login Failures | 3 failed (2 closed before the answer, 1 no answer in time), 2 retried (1 user online after a retry); " +
			"1 user never online, 1,250 deliveries owed them not attempted (in neither expected nor lost) |",
		"| Duplicates / Out of Order | 0 / 0 (and 7 pushed after the user had pulled them: not duplicates) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}
