package limit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LoadText is a load as the search states it.
func LoadText(v float64, dim string) string {
	if dim == "users" {
		return fmt.Sprintf("%s users", num(v))
	}
	return fmt.Sprintf("%s msg/s", num(v))
}

// StepLine is one step's result in a line.
func StepLine(st Step, dim string) string {
	verdict := "held"
	switch {
	case st.Confirm && st.Held:
		verdict = "held again: the limit is confirmed"
	case st.Recheck && st.Held:
		verdict = "held where it broke before: the server carries more now, the search goes on above it"
	case st.Recheck:
		verdict = "broke again: the knee is confirmed; " + strings.Join(st.Broken, ", ") + decided(st)
	case !st.Held:
		verdict = "broke " + strings.Join(st.Broken, ", ") + decided(st)
	}
	if dim == "users" {
		return fmt.Sprintf("step %d: %s asked, %s online, login p99 %s ms: %s%s", st.N, LoadText(st.Asked, dim), num(float64(st.Online)),
			num(st.LoginP99), verdict, LeftText(st))
	}
	recv := "no delivery owed"
	if st.Expected > 0 {
		recv = fmt.Sprintf("%s deliveries/s verified, e2e p99 %s ms", num(st.Deliveries), num(st.E2EP99))
	}
	unchecked := ""
	if st.Unchecked > 0 {
		unchecked = fmt.Sprintf(", unchecked %d", st.Unchecked)
	}
	sent := num(st.Achieved) + " sent"
	if st.Closed > 0 {
		sent += fmt.Sprintf(" (and %s msg/s by the closed-loop classes, %.0f %% of all)", num(st.Closed), closedShare(st))
	}
	return fmt.Sprintf("step %d: %s asked, %s, %s, ack p99 %s ms, lost %d, late %d%s, unanswered %d: %s%s",
		st.N, LoadText(st.Asked, dim), sent, recv, num(st.AckP99), st.Lost, st.Late, unchecked, st.Unanswered, verdict, LeftText(st))
}

// decided is what decided a broken step: "; not the server's: … (run
// again)" or "; by the rule <rule>: <component>".
func decided(st Step) string {
	switch {
	case st.Disturbed != "":
		return "; not the server's: " + st.Disturbed + "; its load runs again"
	case st.Evidence != "" && st.Cause != nil:
		return fmt.Sprintf("; %s; rule %q: %s", st.Evidence, st.Cause.Rule, st.Cause.Component)
	case st.Cause == nil:
		return ""
	case st.Cause.Component != "":
		return fmt.Sprintf("; rule %q: %s", st.Cause.Rule, st.Cause.Component)
	}
	return fmt.Sprintf("; rule %q", st.Cause.Rule)
}

// LeftText is "; its clean-up left …: make clean-target RUN=<its run>" for
// a step that left something on the target, else "".
func LeftText(st Step) string {
	if st.Left == "" {
		return ""
	}
	return fmt.Sprintf("; its clean-up left %s on the target: make clean-target RUN=%s removes them", st.Left, st.RunID)
}

// ResultLine is the search's result in a line.
func ResultLine(r Result) string {
	dim := r.Params.Dimension
	var b strings.Builder
	switch {
	case r.Undetermined:
		fmt.Fprintf(&b, "%s; the highest load held: %s", r.Stopped, LoadText(r.HighestHeld, dim))
		if r.HighestHeld == 0 {
			b.Reset()
			fmt.Fprintf(&b, "%s; no load held", r.Stopped)
		}
		b.WriteString(" (run the search on a quieter machine, or pin the generator and the server to cores of their own: docs/limit.md)")
		return b.String()
	case r.GeneratorLimited:
		fmt.Fprintf(&b, "the generator was the limit, not the server: %s", r.Saturated.Why)
		if r.Limit > 0 {
			fmt.Fprintf(&b, "; the server held %s within %s", LoadText(r.Limit, dim), r.Objective)
		}
		if r.Saturated.Advice != "" {
			fmt.Fprintf(&b, " (%s)", r.Saturated.Advice)
		}
		return b.String()
	case r.Limit == 0:
		fmt.Fprintf(&b, "no step held %s (the smallest tried: %s)", r.Objective, LoadText(r.smallest(), dim))
	default:
		fmt.Fprintf(&b, "limit %s within %s", LoadText(r.Limit, dim), r.Objective)
		if st := r.Step(r.LimitStep); st != nil && dim == "rate" && st.Expected > 0 {
			fmt.Fprintf(&b, " (%s deliveries/s verified, e2e p99 %s ms)", num(st.Deliveries), num(st.E2EP99))
		}
		b.WriteString(spreadText(r))
		if r.Knee > 0 {
			fmt.Fprintf(&b, "; %s broke it", LoadText(r.Knee, dim))
			if r.KneeConfirmed {
				b.WriteString(" twice")
			}
			if k := r.Step(r.KneeStep); k != nil {
				fmt.Fprintf(&b, " (%s)", strings.Join(k.Broken, ", "))
				if k.Evidence != "" {
					fmt.Fprintf(&b, "; other processes took a share of the machine, but the break repeated (%s)", strings.TrimPrefix(k.Evidence, "repeated: "))
				}
			}
		} else {
			b.WriteString("; no step broke it")
		}
	}
	if st := r.Step(r.LimitStep); st != nil && st.Closed > 0 {
		fmt.Fprintf(&b, "; the limit is the open classes' rate with the closed-loop classes beside it, not the server's whole: they sent %s msg/s more at it (%.0f %% of all), as fast as answered, which the search does not control (a scenario of open classes alone measures the server's whole)",
			num(st.Closed), closedShare(*st))
	}
	if r.Drift != "" {
		fmt.Fprintf(&b, "; %s", r.Drift)
	}
	if r.Saturated.Component != "" {
		fmt.Fprintf(&b, "; gave out first: %s: %s", r.Saturated.Component, r.Saturated.Why)
	} else if r.Saturated.Why != "" {
		fmt.Fprintf(&b, "; %s", r.Saturated.Why)
	}
	if r.Stopped != "" && !r.GeneratorLimited {
		fmt.Fprintf(&b, " (the search stopped: %s)", r.Stopped)
	}
	return b.String()
}

// spreadText is "; held again to confirm it: n of n runs at it sent a–b
// msg/s, e2e p99 c–d ms", or "; not confirmed (…)".
func spreadText(r Result) string {
	sp := r.Spread
	if sp == nil {
		return ""
	}
	unit := "msg/s sent"
	if r.Params.Dimension == "users" {
		unit = "users online"
	}
	what := "confirmed"
	if !r.Confirmed {
		what = "not confirmed"
	}
	lat, lo, hi := "e2e", sp.E2EP99Min, sp.E2EP99Max
	switch measureOf(r).name {
	case "ack":
		if sp.AckP99Max > 0 { // the answer time, where the objective is on it (a limit.json of before has none)
			lat, lo, hi = "ack", sp.AckP99Min, sp.AckP99Max
		}
	case "login":
		lat, lo, hi = "login", sp.LoginP99Min, sp.LoginP99Max
	}
	return fmt.Sprintf("; %s: %d of %d runs at it held, %s–%s %s, %s p99 %s–%s ms", what, sp.Held, sp.Runs,
		num(sp.AchievedMin), num(sp.AchievedMax), unit, lat, num(lo), num(hi))
}

func (r Result) smallest() float64 {
	v := 0.0
	for _, s := range r.Steps {
		if v == 0 || s.Asked < v {
			v = s.Asked
		}
	}
	return v
}

// Table is the steps in load order, with each server part's CPU and memory
// and the generator's CPU, as markdown.
func Table(r Result) string {
	steps := append([]Step(nil), r.Steps...)
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Asked < steps[j].Asked })
	var parts []string
	seen := map[string]bool{}
	for _, s := range steps {
		for _, u := range s.Usage {
			if u.Role == "target" && !seen[u.Component] {
				seen[u.Component] = true
				parts = append(parts, u.Component)
			}
		}
	}
	sort.Strings(parts)
	head := []string{"step", "asked", "achieved", "deliveries/s", "e2e p50/p99 ms", "ack p50/p99 ms", "lost", "late", "unchecked", "unanswered", "objective", "decided by"}
	for _, p := range parts {
		head = append(head, p+" CPU / RSS")
	}
	head = append(head, "imbench CPU")
	var b strings.Builder
	b.WriteString("\n| " + strings.Join(head, " | ") + " |\n|" + strings.Repeat(" --- |", len(head)) + "\n")
	for _, s := range steps {
		mark := ""
		switch s.N {
		case r.LimitStep:
			mark = " (limit)"
		case r.KneeStep:
			mark = " (knee)"
		}
		verdict, rule := "held", "objective met"
		switch {
		case s.Confirm && s.Held:
			rule = "objective met again: confirms the limit"
		case s.Recheck && s.Held:
			rule = "objective met where it broke before: the server carries more now"
		case s.Recheck:
			verdict = "broke again, confirms the knee: " + strings.Join(s.Broken, ", ")
		case !s.Held:
			verdict = "broke: " + strings.Join(s.Broken, ", ")
		}
		switch {
		case s.Disturbed != "":
			rule = "not the server's, run again: " + s.Disturbed
		case s.Cause != nil:
			rule = s.Cause.Rule
			if s.Cause.Component != "" {
				rule += ": " + s.Cause.Component
			}
		}
		if s.GeneratorBound {
			rule += "; generator-bound"
		}
		deliveries, e2e := num(s.Deliveries), num(s.E2EP50)+" / "+num(s.E2EP99)
		if s.Expected == 0 {
			deliveries, e2e = "none owed", "—"
		}
		achieved := num(s.Achieved)
		if s.Closed > 0 {
			achieved += fmt.Sprintf(" (+%s closed-loop, %.0f %%)", num(s.Closed), closedShare(s))
		}
		row := []string{fmt.Sprintf("%d%s", s.N, mark), LoadText(s.Asked, r.Params.Dimension), achieved, deliveries,
			e2e, num(s.AckP50) + " / " + num(s.AckP99),
			fmt.Sprint(s.Lost), fmt.Sprint(s.Late), fmt.Sprint(s.Unchecked), fmt.Sprint(s.Unanswered), verdict, rule}
		for _, p := range parts {
			cell := "—"
			for _, u := range s.Usage {
				if u.Component == p {
					cell = fmt.Sprintf("%s %% / %s", num(u.CPUAvg), mib(u.RSSAvg))
				}
			}
			row = append(row, cell)
		}
		row = append(row, fmt.Sprintf("%s %%", num(100*s.GeneratorCores)))
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	return b.String()
}

// num writes a figure with up to three significant decimals and thousands
// separated.
func num(v float64) string {
	switch {
	case v >= 100 || v == float64(int64(v)):
		s := fmt.Sprintf("%.0f", v)
		return group(s)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func group(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Write keeps a search in dir: limit.json (everything), limit.md (the
// result and the step table) and limit.html (the same, with the knee chart).
func Write(dir string, r Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "limit.json"), append(raw, '\n'), 0o644); err != nil {
		return err
	}
	md := Markdown(r)
	if err := os.WriteFile(filepath.Join(dir, "limit.md"), []byte(md), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "limit.html"), HTML(r), 0o644)
}

// Load reads a search's limit.json.
func Load(dir string) (Result, error) {
	var r Result
	raw, err := os.ReadFile(filepath.Join(dir, "limit.json"))
	if err != nil {
		return r, err
	}
	return r, json.Unmarshal(raw, &r)
}

// Markdown is limit.md.
func Markdown(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# imbench limit search %s\n\n%s on %s: %s rising from %s by ×%g to a resolution of %g %%; objective %s.\n\n",
		r.SearchID, r.Scenario, r.Target, r.Params.Dimension, LoadText(r.Params.Start, r.Params.Dimension), r.Params.Factor,
		r.Params.Resolution*100, r.Objective)
	if r.BeforeStep != "" {
		fmt.Fprintf(&b, "Before each step: `%s`.\n\n", r.BeforeStep)
	}
	fmt.Fprintf(&b, "**Result.** %s.\n\n", ResultLine(r))
	if r.Saturated.Advice != "" {
		fmt.Fprintf(&b, "**What to do.** %s.\n\n", r.Saturated.Advice)
	}
	if m := MeasuredText(r); m != "" {
		fmt.Fprintf(&b, "**Measured.** %s.\n\n", m)
	}
	b.WriteString("## Steps\n\nEach step is a whole run of the scenario (results/<search id>_s<n>), every delivery verified; " +
		"latency over the whole step, rates per second of its sending, CPU in % of one core over its sending.\n")
	b.WriteString(Table(r))
	return b.String()
}

// CompareMarkdown sets two searches side by side: the limit, the knee,
// what the limit step delivered, and what gave out first.
func CompareMarkdown(a, b Result) string {
	var out strings.Builder
	fmt.Fprintf(&out, "# imbench compare: limit searches %s vs %s\n\nA: %s on %s, objective %s. B: %s on %s, objective %s.\n\n",
		a.SearchID, b.SearchID, a.Scenario, a.Target, a.Objective, b.Scenario, b.Target, b.Objective)
	out.WriteString("| | A | B | change |\n| --- | --- | --- | --- |\n")
	dim := a.Params.Dimension
	row := func(name string, va, vb float64, text func(float64) string) {
		change := "—"
		if va > 0 {
			change = fmt.Sprintf("%+.1f %%", 100*(vb-va)/va)
		}
		fmt.Fprintf(&out, "| %s | %s | %s | %s |\n", name, text(va), text(vb), change)
	}
	load := func(v float64) string { return LoadText(v, dim) }
	row("Limit", a.Limit, b.Limit, load)
	row("Knee", a.Knee, b.Knee, load)
	at := func(r Result) Step {
		if s := r.Step(r.LimitStep); s != nil {
			return *s
		}
		return Step{}
	}
	sa, sb := at(a), at(b)
	row("Deliveries/s at the limit", sa.Deliveries, sb.Deliveries, num)
	row("E2E p99 at the limit (ms)", sa.E2EP99, sb.E2EP99, num)
	fmt.Fprintf(&out, "| Gave out first | %s | %s | |\n", gaveOut(a), gaveOut(b))
	return out.String()
}

func gaveOut(r Result) string {
	switch {
	case r.GeneratorLimited:
		return "the generator (no server limit)"
	case r.Saturated.Component != "":
		return r.Saturated.Component
	}
	return "—"
}

// MeasuredText says which processes were measured as the server's parts:
// "imbench-target: PID 4242 (3 other processes of that name counted as
// the machine)".
func MeasuredText(r Result) string {
	var out []string
	seen := map[string]bool{}
	for i := len(r.Steps) - 1; i >= 0; i-- {
		for _, u := range r.Steps[i].Usage {
			if u.Role != "target" || seen[u.Component] || len(u.PIDs) == 0 {
				continue
			}
			seen[u.Component] = true
			t := fmt.Sprintf("%s: PID %s", u.Component, pidsText(u.PIDs))
			if u.Others > 0 {
				t += fmt.Sprintf(" (%d other %s of that name counted as the machine)", u.Others, plural(u.Others, "process", "processes"))
			}
			if u.OpenFilesLimit > 0 {
				t += fmt.Sprintf(", open files at most %s of its %s", num(float64(u.OpenFiles)), num(float64(u.OpenFilesLimit)))
			}
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// closedShare is the closed-loop classes' share of a step's messages, %.
func closedShare(st Step) float64 {
	if all := st.Achieved + st.Closed; all > 0 {
		return 100 * st.Closed / all
	}
	return 0
}
