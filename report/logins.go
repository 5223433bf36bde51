package report

import (
	"fmt"

	"github.com/imbench/imbench/internal/summary"
)

// loginFailuresText is the results table's login row: failed attempts and
// their causes, the attempts made again, the users who got online only
// after one, and the users who never got online with what they were owed.
// Zeros are shown, as the Connections row shows them.
func loginFailuresText(s summary.Summary) string {
	u, d := s.Users, s.Deliveries
	out := num(float64(u.LoginFailures.Total())) + " failed"
	if c := u.LoginFailures.Text(); c != "" {
		out += " (" + c + ")"
	}
	out += ", " + num(float64(u.LoginRetries.Total())) + " retried"
	if u.OnlineAfterRetry > 0 {
		out += fmt.Sprintf(" (%s online after a retry)", users(u.OnlineAfterRetry))
	}
	out += "; " + users(u.NeverOnline) + " never online"
	if l := s.Logins; l != nil && l.Failed > 0 {
		// Online, but a request of their login failed (Login Cost).
		out += fmt.Sprintf("; %s got online with a request of their login failed", plural(l.Failed, "login"))
	}
	if d.NotAttempted > 0 {
		out += fmt.Sprintf(", %s deliveries owed them not attempted (in neither expected nor lost)", num(float64(d.NotAttempted)))
	}
	return out
}

func users(n int64) string {
	if n == 1 {
		return "1 user"
	}
	return num(float64(n)) + " users"
}

// duplicatesText is duplicates and out-of-order arrivals, and the late
// pushes of messages already pulled when there were any: neither a
// delivery nor a duplicate, but the sign of a slow push.
func duplicatesText(d summary.DeliveriesSummary) string {
	out := fmt.Sprintf("%s / %s", num(float64(d.Duplicates)), num(float64(d.OutOfOrder)))
	if d.PushedAfterPull > 0 {
		out += fmt.Sprintf(" (and %s pushed after the user had pulled them: not duplicates)", num(float64(d.PushedAfterPull)))
	}
	return out
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return num(float64(n)) + " " + what + "s"
}
