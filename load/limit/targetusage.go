package limit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/procgroup"
)

// TargetUsageFile is what a run measured of its target's processes while
// it sent (IMBENCH_TARGET_USAGE=1; make compare-servers asks for it).
const TargetUsageFile = "target_usage.json"

// TargetUsage is target_usage.json: each part's CPU and memory over the
// sending window, as a limit search's step has them.
type TargetUsage struct {
	From  time.Time `json:"from"`
	To    time.Time `json:"to"`
	Usage []Usage   `json:"usage"`
}

// MeasureTarget samples the target's processes (the listening owners of
// ports) while a run goes; the function it returns writes the run's
// target_usage.json into its folder once the summary is there.
func MeasureTarget(groups []profile.Process, ports []int, roles map[string]string, remote RemoteUsage) (done func(dir string)) {
	sampler, err := procgroup.Start(groups, time.Second, ports...)
	if err != nil {
		return func(string) {}
	}
	return func(dir string) {
		defer sampler.Stop()
		s, err := summary.Load(filepath.Join(dir, "summary.json"))
		if err != nil || s.Messages.FirstSendMs == 0 {
			return
		}
		from, to := time.UnixMilli(s.Messages.FirstSendMs), time.UnixMilli(s.Messages.LastSendMs)
		if to.Sub(from) < time.Second {
			to = from.Add(time.Second)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		u := TargetUsage{From: from, To: to, Usage: UsageOver(ctx, sampler, roles, remote, s, from, to)}
		if raw, err := json.MarshalIndent(u, "", "  "); err == nil {
			os.WriteFile(filepath.Join(dir, TargetUsageFile), append(raw, '\n'), 0o644)
		}
	}
}

// ReadTargetUsage is what a run measured of its target (its
// target_usage.json), and over how many seconds.
func ReadTargetUsage(dir string) ([]Usage, float64) {
	raw, err := os.ReadFile(filepath.Join(dir, TargetUsageFile))
	var u TargetUsage
	if err != nil || json.Unmarshal(raw, &u) != nil {
		return nil, 0
	}
	return u.Usage, u.To.Sub(u.From).Seconds()
}
