// Package im is the k6 JavaScript module k6/x/im: a scenario states a
// workload in JS; Go holds the users' connections, sends at the plan's pace
// and verifies every delivery. It knows no protocol: drivers register
// themselves with the engine by name. Files: module.go (registration and
// exports), target.go (where the server is), run.go (workloads, setup,
// teardown, the per-process run state), session.go (a VU's users),
// metrics.go (k6 metrics), latency.go and promrw.go (latency from the
// histograms, to k6 and to Prometheus), summary.go (end-of-test table and
// summary.json).
package runner

import (
	"sync"

	"go.k6.io/k6/js/modules"
)

func init() {
	modules.Register("k6/x/im", New())
}

// RootModule is created once per k6 process; it holds the runs, so that
// setup(), every VU and teardown() of one test share one state.
type RootModule struct {
	openMu sync.Mutex // one run opened at a time
	mu     sync.Mutex
	runs   map[string]*Run
	last   *Run
	plans  map[string]*planEntry
}

// New returns the root module.
func New() *RootModule {
	return &RootModule{runs: map[string]*Run{}, plans: map[string]*planEntry{}}
}

// ModuleInstance is the module as one VU sees it.
type ModuleInstance struct {
	root    *RootModule
	vu      modules.VU
	metrics *metricSet
}

var (
	_ modules.Module   = (*RootModule)(nil)
	_ modules.Instance = (*ModuleInstance)(nil)
)

// NewModuleInstance implements modules.Module.
func (r *RootModule) NewModuleInstance(vu modules.VU) modules.Instance {
	ms, err := newMetricSet(vu.InitEnv().Registry)
	if err != nil {
		panic(err) // only a name clash with another extension's metric can cause this
	}
	return &ModuleInstance{root: r, vu: vu, metrics: ms}
}

// Exports implements modules.Instance.
func (mi *ModuleInstance) Exports() modules.Exports {
	fns := map[string]any{
		"target":      mi.Target,
		"workload":    mi.Workload,
		"integration": mi.Integration,
		"setup":       mi.Setup,
		"attach":      mi.Attach,
		"session":     mi.Session,
		"finish":      mi.Finish,
		"summary":     mi.Summary,
	}
	return modules.Exports{Default: fns, Named: fns}
}
