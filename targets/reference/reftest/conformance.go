package reftest

import (
	"context"
	"testing"

	"github.com/imbench/imbench/load/conformance"
	"github.com/imbench/imbench/targets/reference/core"
)

// Faults are the core's faults for a conformance run's.
func Faults(f conformance.Faults) core.Faults {
	return core.Faults{Lose: f.Lose, SkipPush: f.SkipPush, Duplicate: f.Duplicate, Reorder: f.Reorder,
		ReorderHold: f.ReorderHold, Delay: f.Delay, AckLate: f.AckLate, AckLateBy: f.AckLateBy, BatchDrop: f.BatchDrop, BatchWindow: f.BatchWindow, Capacity: f.Capacity, StallPulls: f.StallPulls, DisconnectEvery: f.DisconnectEvery,
		DisconnectCount: f.DisconnectCount, Seed: f.Seed}
}

// RunDisconnects runs c's disconnect fault until the test ends, when f
// asks for one (a target started from a test runs no loop of its own).
func RunDisconnects(t testing.TB, c *core.Core, f conformance.Faults) {
	if f.DisconnectEvery <= 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go c.RunDisconnects(ctx)
}
