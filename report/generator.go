package report

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/imbench/imbench/internal/profile"
)

// The series every process of a run pushes about itself, with the run's
// labels (load/runner/metrics.go): they count this run's generator alone,
// where process-exporter's imbench group counts every imbench process on
// the host, another run's included.
const (
	ownCPUSeries = "imbench_process_cpu_seconds_total"
	ownRSSSeries = "imbench_process_resident_memory_bytes"
)

// ownGeneratorQueries are the resource table's five figures over the run's
// own series, in its order (rules are evaluated every 5 s; so is this).
func ownGeneratorQueries(runID, window string) []string {
	return ownQueries(fmt.Sprintf(`sum(rate(%s{run_id=%q}[30s]))`, ownCPUSeries, runID), fmt.Sprintf(`sum(%s{run_id=%q})`, ownRSSSeries, runID),
		fmt.Sprintf(`count(%s{run_id=%q})`, ownRSSSeries, runID), window)
}

// ownQueries are the table's five figures over the window from a run's own
// CPU rate, memory and process count: CPU average and peak (% of a core),
// memory average and peak, the most processes.
func ownQueries(cpu, mem, procs, window string) []string {
	over := func(f, expr string) string { return fmt.Sprintf("%s(%s[%s:5s])", f, expr, window) }
	return []string{
		"100 * " + over("avg_over_time", cpu),
		"100 * " + over("max_over_time", cpu),
		over("avg_over_time", mem),
		over("max_over_time", mem),
		over("max_over_time", procs),
	}
}

// ownGenerator puts the generator's row from the run's own series in rows,
// in place of process-exporter's group, when the run pushed them.
func (s *Series) ownGenerator(ctx context.Context, prom Prom, rows map[string]*Resource, window string, to time.Time) error {
	row := Resource{Component: profile.GeneratorGroup, Role: "generator"}
	figures := []*float64{&row.CPUAvg, &row.CPUPeak, &row.RSSAvg, &row.RSSPeak, &row.Processes}
	queries := ownGeneratorQueries(s.RunID, window)
	found := false
	for i, expr := range queries {
		res, err := prom.Instant(ctx, expr, to)
		if err != nil {
			return err
		}
		if len(res) > 0 {
			*figures[i] = res[0].Value
			found = true
		}
	}
	if !found {
		return nil
	}
	for i, name := range []string{"cpu_avg", "cpu_peak", "rss_avg", "rss_peak", "processes"} {
		s.Queries["generator_"+name] = queries[i] + " @ " + to.UTC().Format(time.RFC3339)
	}
	rows[profile.GeneratorGroup] = &row
	s.GeneratorOwn = true
	return nil
}

// OtherRun is a run that pushed figures while this one ran.
type OtherRun struct {
	RunID  string `json:"run_id"`
	Target string `json:"target"`
}

// otherRuns lists the runs other than runID that pushed figures within the
// window: their load may have shared the host or the target.
func otherRuns(ctx context.Context, prom Prom, runID, window string, to time.Time, queries map[string]string) ([]OtherRun, error) {
	expr := fmt.Sprintf(`count by (run_id, target) (count_over_time(imbench_vus{run_id!=%q}[%s]))`, runID, window)
	queries["other_runs"] = expr + " @ " + to.UTC().Format(time.RFC3339)
	res, err := prom.Instant(ctx, expr, to)
	if err != nil {
		return nil, err
	}
	var out []OtherRun
	for _, r := range res {
		out = append(out, OtherRun{RunID: r.Metric["run_id"], Target: r.Metric["target"]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RunID < out[j].RunID })
	return out, nil
}
