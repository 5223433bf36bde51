package sidebyside

import (
	"fmt"
	"strings"
)

// Markdown is the comparison as a table: each figure's medians, their
// ratio and the rounds' own ratios, with the rounds and the machine's load.
func (res *Result) Markdown() string {
	a, b := res.Config.Tools[0].Name, res.Config.Tools[1].Name
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d alternating rounds on %d CPUs, 1-minute load %.2f–%.2f", res.rounds(), res.CPUs, res.LoadLow, res.LoadMax)
	if c := res.Config; c.ServerCPUs != "" || c.ToolCPUs != "" {
		fmt.Fprintf(&sb, "; server on CPUs %s, tools on %s", orAll(c.ServerCPUs), orAll(c.ToolCPUs))
	}
	fmt.Fprintf(&sb, "\n\n| figure | %s (median) | %s (median) | %s ÷ %s | rounds' ratios |\n|---|---|---|---|---|\n", a, b, a, b)
	for _, r := range res.Ratios {
		if r.First == 0 && r.Second == 0 {
			continue // not measured (e.g. /proc/PID/io unreadable), or nothing to count
		}
		ratio, rounds := "–", "–"
		if r.Second > 0 {
			ratio = fmt.Sprintf("%.2f", r.Ratio)
		}
		if r.High > 0 {
			rounds = fmt.Sprintf("%.2f–%.2f", r.Low, r.High)
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s |\n", r.Figure, num(r.First), num(r.Second), ratio, rounds)
	}
	return sb.String()
}

func (res *Result) rounds() int {
	n := 0
	for _, r := range res.Runs {
		n = max(n, r.Round)
	}
	return n
}

func orAll(cpus string) string {
	if cpus == "" {
		return "any"
	}
	return cpus
}

func num(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v < 1: // a count per delivery
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
