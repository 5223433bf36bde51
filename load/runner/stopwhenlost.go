package runner

import (
	"fmt"
	"strings"
	"sync"

	"github.com/imbench/imbench/internal/latency"
	"github.com/imbench/imbench/internal/summary"
)

// lostAtLogin checks StopWhenLost once every user of this process had its
// login: a hold run whose objective is lost then has nothing left to
// decide, and skips its hold. What a hold run is judged on is known by
// then: who never got online, the connections that failed, the logins'
// time.
type lostAtLogin struct {
	once sync.Once
	lost string
}

func (r *Run) lostAfterLogin() string {
	r.stopCheck.once.Do(func() {
		if len(r.Opts.StopWhenLost) == 0 {
			return
		}
		t := r.Shared.Totals()
		var s summary.Summary
		s.Users.NeverOnline, s.Users.ConnectErrors = t.NeverOnline, t.ConnectErrors
		s.Histograms = map[string]latency.Encoded{}
		if h := r.loginHistogram(); h.Count() > 0 {
			if enc, err := h.Encode(); err == nil {
				s.Histograms["login"] = enc
			}
		}
		rs, err := CheckThresholds(r.Opts.StopWhenLost, &s)
		if err != nil {
			return
		}
		var broken []string
		for _, res := range rs {
			if !res.Passed {
				broken = append(broken, fmt.Sprintf("%s %s (%g)", res.Metric, res.Expr, res.Actual))
			}
		}
		r.stopCheck.lost = strings.Join(broken, ", ")
		if r.stopCheck.lost != "" {
			r.Shared.Logf("the objective is lost once the users logged in (%s): the hold is skipped", r.stopCheck.lost)
		}
	})
	return r.stopCheck.lost
}
