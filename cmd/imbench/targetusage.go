package main

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/imbench/imbench/internal/procgroup"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/stack"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/limit"
	"github.com/imbench/imbench/report"
)

// TargetUsageFile is what a run measured of its target's processes while
// it sent (IMBENCH_TARGET_USAGE=1; make compare-servers asks for it).
const TargetUsageFile = "target_usage.json"

// TargetUsage is target_usage.json: each part's CPU and memory over the
// sending window, as a limit search's step has them.
type TargetUsage struct {
	From  time.Time     `json:"from"`
	To    time.Time     `json:"to"`
	Usage []limit.Usage `json:"usage"`
}

// measureTarget samples the target's processes (the listening owners of
// the run's ports) while the run goes, where IMBENCH_TARGET_USAGE=1; the
// function it returns writes target_usage.json once the summary is there.
func measureTarget(rc *runConfig) (done func(dir string)) {
	if os.Getenv("IMBENCH_TARGET_USAGE") != "1" {
		return func(string) {}
	}
	groups := append(profile.StackGroupsList(), rc.target.Processes...)
	ports := procgroup.Ports(slices.Collect(maps.Values(rc.endpoints)))
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
		prom := &report.Prom{URL: "http://" + stack.Addrs().Prometheus}
		u := TargetUsage{From: from, To: to, Usage: stepUsage(ctx, prom, sampler, s, componentRoles(rc.target), from, to)}
		if raw, err := json.MarshalIndent(u, "", "  "); err == nil {
			os.WriteFile(filepath.Join(dir, TargetUsageFile), append(raw, '\n'), 0o644)
		}
	}
}
