package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// resourceSections is the OpenIM report's resource tables: the target's
// parts with a Total row, whatever else ran on the host in a line of its
// own, then the generator and the observability stack.
func (r *Report) resourceSections() []section {
	sec := section{Title: "Server resources"}
	if r.Series == nil || len(r.Series.Resources) == 0 {
		sec.Paras = append(sec.Paras, "No Prometheus data for this run: the resource tables and the charts are "+
			"unavailable; everything above comes from summary.json.")
		return []section{sec}
	}
	sec.Paras = append(sec.Paras, "CPU in % of one core, as the OpenIM report counts it (210 % = 2.1 cores); "+
		"average and peak over the run, from process-exporter (or cAdvisor) through imbench:component_* rules; "+
		"memory by proportional share (PSS) where the kernel gives it, so that memory a group's processes share counts once.")
	if t := r.targetSource(); t != "" {
		sec.Paras = append(sec.Paras, t)
	}
	if c := r.Series.Coverage; c > 0 && c < 0.9 {
		sec.Paras = append(sec.Paras, fmt.Sprintf("Incomplete: these figures rest on %s %% of the run; "+
			"Prometheus has no samples for the rest.", dec(c*100, 0)))
	}
	head := []string{"Process", "CPU avg", "CPU peak", "Memory avg", "Memory peak"}
	target := table{Head: head}
	side := table{Head: head}
	var tot Resource
	var host []string
	for _, x := range r.Series.Resources {
		switch x.Role {
		case "target":
			target.Rows = append(target.Rows, resourceRow(x, r.componentName(x)))
			tot.CPUAvg += x.CPUAvg
			tot.CPUPeak += x.CPUPeak
			tot.RSSAvg += x.RSSAvg
			tot.RSSPeak += x.RSSPeak
		case "other":
			host = append(host, fmt.Sprintf("%s (CPU avg %s, memory avg %s)", processName(x), pct(x.CPUAvg), bytesText(x.RSSAvg)))
		case "generator":
			side.Rows = append(side.Rows, resourceRow(x, r.generatorName(x)))
		default:
			side.Rows = append(side.Rows, resourceRow(x, processName(x)))
		}
	}
	if missing := r.unmatched(); len(target.Rows) > 0 && missing != "" {
		sec.Paras = append(sec.Paras, missing)
	}
	if len(target.Rows) == 0 {
		sec.Paras = append(sec.Paras, "No process of the target was seen: none listened on the run's ports on this machine "+
			"(a remote target is measured on its own host), and none matched the target profile's process groups "+
			"(a binary of another name: add it in targets/<target>/profile.local.yaml).")
	} else {
		target.Rows = append(target.Rows, []string{"Total", pct(tot.CPUAvg), pct(tot.CPUPeak) + " (sum of peaks)",
			bytesText(tot.RSSAvg), bytesText(tot.RSSPeak) + " (sum of peaks)"})
		sec.Tables = append(sec.Tables, target)
	}
	// Under the table: a section's paragraphs come before its tables.
	var beside section
	if len(host) > 0 {
		beside.Paras = append(beside.Paras, "Also on this host, not part of the target (not in its table or Total): "+
			strings.Join(host, ", ")+".")
	}
	if runs := r.otherRunsText(); runs != "" {
		beside.Paras = append(beside.Paras, "Other runs were under way during this one (they pushed figures to the same "+
			"Prometheus): "+runs+". Where they ran on this host or against this target, their load is in these figures too.")
	}
	gen := section{Title: "Load generator and observability", Tables: []table{side},
		Paras: []string{"imbench is the load generator: a saturated generator invalidates a benchmark (keep it under 80 % of its machine).",
			r.generatorSource()}}
	if len(beside.Paras) == 0 {
		return []section{sec, gen}
	}
	return []section{sec, beside, gen}
}

func resourceRow(x Resource, name string) []string {
	return []string{name, cpuText(x.CPUAvg, x.Processes), pct(x.CPUPeak), bytesText(x.RSSAvg), bytesText(x.RSSPeak)}
}

// generatorName marks a generator row that is not this run's alone.
func (r *Report) generatorName(x Resource) string {
	if !r.Series.GeneratorOwn && len(r.Series.OtherRuns) > 0 {
		return processName(x) + " (every run's on this host)"
	}
	return processName(x)
}

// generatorSource says what the generator row counts.
func (r *Report) generatorSource() string {
	if r.Series.GeneratorOwn {
		return "The imbench row is this run's own processes: the CPU and memory each of them pushed with the run's id."
	}
	if len(r.Series.OtherRuns) > 0 {
		return "The imbench row is every process named imbench on this host (process-exporter's group): " +
			"the other runs' generators are in it."
	}
	return "The imbench row is every process named imbench on this host (process-exporter's group)."
}

// targetSource says which of the target's rows are the processes that
// served this run's ports, by PID.
func (r *Report) targetSource() string {
	if len(r.Series.TargetPIDs) == 0 {
		return ""
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(r.Series.TargetPIDs)) {
		var pids []string
		for _, p := range r.Series.TargetPIDs[name] {
			pids = append(pids, strconv.Itoa(p))
		}
		parts = append(parts, fmt.Sprintf("%s (PID %s)", name, strings.Join(pids, ", ")))
	}
	return "Measured by the run's ports, not by name: " + strings.Join(parts, "; ") +
		" listened on them, and those rows are these processes alone; other processes of the same name on this host are not in them."
}

func (r *Report) otherRunsText() string {
	var parts []string
	for _, o := range r.Series.OtherRuns {
		parts = append(parts, fmt.Sprintf("%s (target %s)", o.RunID, o.Target))
	}
	return strings.Join(parts, ", ")
}

func processName(x Resource) string {
	if x.Processes > 1 {
		return fmt.Sprintf("%s (%s processes)", x.Component, num(x.Processes))
	}
	return x.Component
}

// cpuText adds the per-process share when several processes share a
// component, as the seed's "27%*8".
func cpuText(v, procs float64) string {
	if procs > 1 {
		return fmt.Sprintf("%s (%s × %s)", pct(v), pct(v/procs), num(procs))
	}
	return pct(v)
}

// componentName is a target row's name, with what its group counts where
// a local override says it is not what its name says.
func (r *Report) componentName(x Resource) string {
	for _, c := range r.Components {
		if c.Group == x.Component && c.Note != "" {
			return processName(x) + ": " + c.Note
		}
	}
	return processName(x)
}

// unmatched says which of the target's process groups no process matched
// during the run ("" when every one did): left out silently, the table's
// Total would be short without a word.
func (r *Report) unmatched() string {
	return UnmatchedText(r.Components, func(group string) bool {
		for _, x := range r.Series.Resources {
			if x.Component == group && x.Processes > 0 {
				return true
			}
		}
		return false
	})
}

// UnmatchedText names the components seen reports false for, each with the
// profile that defines it.
func UnmatchedText(components []Component, seen func(group string) bool) string {
	var parts []string
	for _, c := range components {
		if !seen(c.Group) {
			parts = append(parts, fmt.Sprintf("%s: no process seen — check processes in %s", c.Group, c.Profile))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Not in the table or its Total: " + strings.Join(parts, "; ") + "."
}
