package report

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// The series a run pushes about the processes serving its ports on its
// machine (load/runner/targetprocs.go), with the run's labels and each
// process's component and pid: the target's own processes, where
// process-exporter's groups count every process of their name on the host.
const (
	ownTargetCPU  = "imbench_target_process_cpu_seconds_total"
	ownTargetMem  = "imbench_target_process_memory_bytes"
	ownTargetSize = "imbench_target_process_tree_size"
)

// ownTargetQueries are the resource table's five figures per component over
// the run's own target series, in its order.
func ownTargetQueries(runID, window string) []string {
	return ownQueries(fmt.Sprintf(`sum by (component) (rate(%s{run_id=%q}[30s]))`, ownTargetCPU, runID),
		fmt.Sprintf(`sum by (component) (%s{run_id=%q})`, ownTargetMem, runID),
		fmt.Sprintf(`sum by (component) (%s{run_id=%q})`, ownTargetSize, runID), window)
}

// ownTarget puts the rows of the target's processes that served the run's
// ports, from the run's own series, in place of process-exporter's groups
// of the same name, and says which PIDs they measured.
func (s *Series) ownTarget(ctx context.Context, prom Prom, rows map[string]*Resource, window string, to time.Time) error {
	queries := ownTargetQueries(s.RunID, window)
	own := map[string]*Resource{}
	for i, expr := range queries {
		res, err := prom.Instant(ctx, expr, to)
		if err != nil {
			return err
		}
		for _, r := range res {
			name := r.Metric["component"]
			row := own[name]
			if row == nil {
				row = &Resource{Component: name, Role: "target"}
				own[name] = row
			}
			*[]*float64{&row.CPUAvg, &row.CPUPeak, &row.RSSAvg, &row.RSSPeak, &row.Processes}[i] = r.Value
		}
	}
	if len(own) == 0 {
		return nil
	}
	for i, name := range []string{"cpu_avg", "cpu_peak", "rss_avg", "rss_peak", "processes"} {
		s.Queries["target_own_"+name] = queries[i] + " @ " + to.UTC().Format(time.RFC3339)
	}
	pidsExpr := fmt.Sprintf(`count by (component, pid) (count_over_time(%s{run_id=%q}[%s]))`, ownTargetMem, s.RunID, window)
	res, err := prom.Instant(ctx, pidsExpr, to)
	if err != nil {
		return err
	}
	s.TargetPIDs = map[string][]int{}
	for _, r := range res {
		if pid, err := strconv.Atoi(r.Metric["pid"]); err == nil {
			s.TargetPIDs[r.Metric["component"]] = append(s.TargetPIDs[r.Metric["component"]], pid)
		}
	}
	for name := range s.TargetPIDs {
		slices.Sort(s.TargetPIDs[name])
	}
	for name, row := range own {
		// What process-exporter's group of that name had beyond this run's
		// server: other processes of the name on the host, the machine's.
		// Only where they held memory: a server forking short-lived
		// children (PostgreSQL's backends) has its peak count at another
		// moment in each series, and no process is there at all.
		if pe := rows[name]; pe != nil && pe.Processes > row.Processes && pe.RSSAvg > row.RSSAvg {
			rest := name + " (other processes of that name)"
			rows[rest] = &Resource{Component: rest, Role: "other", CPUAvg: max(pe.CPUAvg-row.CPUAvg, 0), CPUPeak: max(pe.CPUPeak-row.CPUPeak, 0),
				RSSAvg: max(pe.RSSAvg-row.RSSAvg, 0), RSSPeak: max(pe.RSSPeak-row.RSSPeak, 0), Processes: pe.Processes - row.Processes}
		}
		rows[name] = row
	}
	return nil
}
