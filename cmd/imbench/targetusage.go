package main

import (
	"maps"
	"os"
	"slices"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/stack"
	"github.com/imbench/imbench/load/limit"
	"github.com/imbench/imbench/load/procgroup"
	"github.com/imbench/imbench/report"
)

// measureTarget samples the target's processes while the run goes, where
// IMBENCH_TARGET_USAGE=1 (make compare-servers asks for it); the function
// it returns writes target_usage.json once the summary is there.
func measureTarget(rc *runConfig) (done func(dir string)) {
	if os.Getenv("IMBENCH_TARGET_USAGE") != "1" {
		return func(string) {}
	}
	roles := report.Roles(targetComponents(rc.target))
	return limit.MeasureTarget(append(profile.StackGroupsList(), rc.target.Processes...), runPorts(rc), roles,
		report.StepUsage(report.Prom{URL: "http://" + stack.Addrs().Prometheus}, roles))
}

// runPorts are the run's endpoints' ports, in order.
func runPorts(rc *runConfig) []int {
	ports := procgroup.Ports(slices.Collect(maps.Values(rc.endpoints)))
	slices.Sort(ports)
	return ports
}
