package runner

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/imbench/imbench/internal/summary"

	"github.com/imbench/imbench/internal/latency"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// Progress lines: one every few seconds on a terminal, less often into a
// file, none with IM_PROGRESS=off (imbench run -q). IM_PROGRESS may also
// be an interval ("2s").
const (
	progressTTY  = 5 * time.Second
	progressFile = 30 * time.Second
)

// progressEvery reads IM_PROGRESS for an output that is a terminal or not;
// 0 means no progress lines.
func progressEvery(setting string, tty bool) (time.Duration, error) {
	switch setting {
	case "":
		if tty {
			return progressTTY, nil
		}
		return progressFile, nil
	case "off", "0", "false":
		return 0, nil
	}
	d, err := time.ParseDuration(setting)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("IM_PROGRESS=%q: want off or an interval such as 5s", setting)
	}
	return d, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressSnap is what one line is computed from.
type progressSnap struct {
	at       time.Time
	phase    string
	online   int64
	planned  int
	totals   verify.Totals
	e2e      latency.Native
	sendFrom time.Time
}

func snapshot(r *Run) progressSnap {
	sh := r.Shared
	s := progressSnap{at: time.Now(), phase: sh.Phase(), online: sh.Online(), totals: sh.Totals(), sendFrom: sh.SendingSince()}
	for _, sess := range sh.Sessions() {
		for k := 0; k < verify.Kinds; k++ {
			sess.Tally.E2E[k].MergeNativeInto(&s.e2e)
		}
		for u := sess.Lo; u < sess.Hi; u++ {
			if r.Plan.Login[u] != plan.Never {
				s.planned++
			}
		}
	}
	return s
}

// plannedRate is what the plan had due between prev and cur, a second:
// a timeline's classes start, stop and burst. Before sending, the plan's
// rate.
func plannedRate(r *Run, prev, cur progressSnap, dt float64) float64 {
	if cur.phase != "sending" || cur.sendFrom.IsZero() || dt <= 0 {
		return r.Plan.Rate
	}
	due := r.Plan.DueBefore(cur.at.Sub(cur.sendFrom)) - r.Plan.DueBefore(prev.at.Sub(cur.sendFrom))
	return math.Round(float64(due)/dt*100) / 100
}

// progressLine says what happened between prev and cur, and what is left.
func progressLine(r *Run, prev, cur progressSnap) string {
	dt := cur.at.Sub(prev.at).Seconds()
	rate := func(now, before int64) float64 {
		if dt <= 0 {
			return 0
		}
		return float64(now-before) / dt
	}
	t, p := cur.totals, prev.totals
	recv := verify.Sum(t.Pushed) + verify.Sum(t.Pulled)
	var b strings.Builder
	fmt.Fprintf(&b, "imbench: %s %s", clock(cur.at.Sub(r.StartedAt)), orDash(cur.phase))
	if r.Segments > 1 {
		fmt.Fprintf(&b, " [segment %s]", r.Segment)
	}
	fmt.Fprintf(&b, " · online %s/%s", grouped(cur.online), grouped(int64(cur.planned)))
	b.WriteString(loginTrouble(t, cur.planned))
	fmt.Fprintf(&b, " · sent %.0f/s", rate(verify.Sum(t.Sent), verify.Sum(p.Sent)))
	if r.Plan.Rate > 0 && r.Plan.Planned() != 0 { // a holding plan has a rate and no message
		fmt.Fprintf(&b, " (plan %s/s)", summary.RateNum(plannedRate(r, prev, cur, dt)))
	}
	fmt.Fprintf(&b, ", acked %.0f/s · delivered %.0f/s", rate(verify.Sum(t.Acked), verify.Sum(p.Acked)),
		rate(recv, verify.Sum(p.Pushed)+verify.Sum(p.Pulled)))
	fmt.Fprintf(&b, " · awaited %d, duplicates %d", max(verify.Sum(t.Expected)-recv, 0), verify.Sum(t.Duplicates))
	if w := cur.e2e.Since(&prev.e2e); w.Count() > 0 {
		fmt.Fprintf(&b, " · e2e p50 %s p99 %s", ms(w.QuantileSeconds(0.5)), ms(w.QuantileSeconds(0.99)))
	}
	if d := r.Plan.Duration(); cur.phase == "sending" && d > 0 && !cur.sendFrom.IsZero() {
		if left := d - cur.at.Sub(cur.sendFrom); left > 0 {
			fmt.Fprintf(&b, " · sending %s more", clock(left))
		}
	}
	return b.String()
}

// loginTrouble is the " · logins …" part of a line: first logins done of
// those planned, attempts failed by cause, retried, and users given up on;
// empty while no login attempt has failed.
func loginTrouble(t verify.Totals, planned int) string {
	failed, retried := verify.Causes(t.LoginFailed), verify.Causes(t.LoginRetried)
	if failed == 0 && retried == 0 && t.NeverOnline == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, " · logins %s/%s (%s failed", grouped(t.LoginsImmediate+t.LoginsLate), grouped(int64(planned)), grouped(failed))
	sep := ": "
	for c, n := range t.LoginFailed {
		if n > 0 {
			fmt.Fprintf(&b, "%s%s %s", sep, grouped(n), strings.ReplaceAll(verify.LoginCauseName(c), "_", " "))
			sep = ", "
		}
	}
	if retried > 0 {
		fmt.Fprintf(&b, "; %s retried", grouped(retried))
		if t.LoginsRetried > 0 {
			fmt.Fprintf(&b, ", %s online after a retry", grouped(t.LoginsRetried))
		}
	}
	if t.NeverOnline > 0 {
		fmt.Fprintf(&b, "; %s never online", grouped(t.NeverOnline))
	}
	b.WriteString(")")
	return b.String()
}

func grouped(n int64) string { return summary.Grouped(n) }

func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

func ms(sec float64) string {
	if sec < 0.01 {
		return fmt.Sprintf("≤%.1f ms", sec*1000)
	}
	return fmt.Sprintf("≤%.0f ms", sec*1000)
}

func orDash(s string) string {
	if s == "" {
		return "setup"
	}
	return s
}

// progress prints lines for a run until stop; the last one covers the
// whole run.
type progress struct {
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

func startProgress(r *Run, out io.Writer, every time.Duration) *progress {
	pr := &progress{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(pr.done)
		t := time.NewTicker(every)
		defer t.Stop()
		first := progressSnap{at: r.StartedAt}
		prev := first
		for {
			select {
			case <-pr.stop:
				cur := snapshot(r)
				cur.phase = "done"
				fmt.Fprintln(out, progressLine(r, first, cur))
				return
			case <-t.C:
				cur := snapshot(r)
				fmt.Fprintln(out, progressLine(r, prev, cur))
				prev = cur
			}
		}
	}()
	return pr
}

// Stop prints the last line and waits for it.
func (pr *progress) Stop() {
	if pr == nil {
		return
	}
	pr.once.Do(func() { close(pr.stop) })
	<-pr.done
}
