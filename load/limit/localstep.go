package limit

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/runner"
)

// RunnerSteps runs each step in this process (load/runner), its output in
// the step's step.log (and its progress lines on Progress, where set).
type RunnerSteps struct {
	// Config is the runner's configuration for a run with env added.
	Config   func(runID string, env []string) runner.Config
	Progress io.Writer
}

// RunStep runs step r to its end and reads its summary.
func (rs RunnerSteps) RunStep(ctx context.Context, r StepRun) (summary.Summary, error) {
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return summary.Summary{}, err
	}
	logPath := filepath.Join(r.Dir, "step.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return summary.Summary{}, err
	}
	defer logf.Close()
	cfg := rs.Config(r.RunID, r.Env)
	cfg.NoThresholds = true // the objective judges the step
	cfg.Stdout, cfg.Stderr = logf, logf
	if rs.Progress != nil {
		cfg.Stderr = io.MultiWriter(logf, rs.Progress)
	}
	prep, err := runner.Prepare(ctx, cfg)
	if err != nil {
		return summary.Summary{}, fmt.Errorf("step %d: %w", r.N, err)
	}
	if planned := prep.Run.Plan.Rate; r.Dimension == "rate" && math.Abs(planned-r.Asked) > 0.01*r.Asked {
		prep.Close()
		return summary.Summary{}, badinput.Errorf("step %d would plan %.1f msg/s where the search asks %g: the scenario does not take its rate "+
			"from IM_RATE (a workload spreads ...planKnobs(__ENV); its open classes share the rate)", r.N, planned, r.Asked)
	}
	code := prep.Execute(ctx)
	s, err := summary.Load(filepath.Join(r.Dir, "summary.json"))
	if err != nil {
		return s, fmt.Errorf("step %d ended (exit %d) with no summary: %w (%s)", r.N, code, err, logPath)
	}
	if code == runner.ExitAborted || code == runner.ExitInterrupted {
		return s, fmt.Errorf("step %d: the run ended early (exit %d): see %s", r.N, code, logPath)
	}
	return s, nil
}
