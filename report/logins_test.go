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

// A login that got online though a request of its sync failed (REST calls
// past the timeout) shows in the login row, as summary.json's
// logins.failed and the Login Cost row count it.
func TestLoginRowCountsLoginsWithAFailedRequest(t *testing.T) {
	s := sampleSummary()
	s.Users.LoginFailures = &summary.LoginCauses{ConnRefused: 3}
	s.Logins = &summary.LoginsSummary{Mode: "sdk", Count: 100, Failed: 7}
	md := (&Report{Summary: s}).Markdown()
	want := "| Login Failures | 3 failed (3 connection refused (nothing listened)), 0 retried; 0 users never online; 7 logins got online with a request of their login failed |"
	if !strings.Contains(md, want) || !strings.Contains(md, "7 with a failed request") {
		t.Errorf("report.md lacks %q:\n%s", want, md)
	}
}
