package comparison

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/load/limit"
	"github.com/imbench/imbench/report"
)

// Runner starts a server's runs: each returns the exit code of an `imbench
// run` or `imbench limit` with the comparison's arguments.
type Runner interface {
	// Check refuses a server whose run would be refused (its last line):
	// its settings alone where reach is false (a server its before
	// command starts is not up yet), else its target too.
	Check(s Server, reach bool) error
	// Run runs the fixed load as runID; verdict is its verdict line.
	Run(s Server, runID string) (exit int, verdict string)
	// Limit runs the limit search as searchID.
	Limit(s Server, searchID string) (exit int)
	// Warm runs the workload for s.Warmup as runID, its figures not the
	// comparison's.
	Warm(s Server, runID string) (exit int)
}

// Comparison is one workload on several servers.
type Comparison struct {
	ID, Scenario string
	Load         string // what the fixed load is, in words
	Objective    string
	Servers      []Server
	ResultsDir   string
	NoLimit      bool
	Runner       Runner
	Out, Errs    io.Writer
}

// RunID is server i's fixed-load run (from 0); SearchID its limit search.
func (c *Comparison) RunID(i int) string    { return fmt.Sprintf("%s_%dr", c.ID, i+1) }
func (c *Comparison) SearchID(i int) string { return fmt.Sprintf("%s_%dl", c.ID, i+1) }

// Run checks every server before any is loaded (a typo in the last one's
// settings is said before the first run, not after an hour; a server with
// a before command, which may start it, has its settings checked then and
// its target once the command ran), then runs each alone in turn and
// writes comparison.json, .md and .html. Its exit is the first server's
// run that failed (99: its thresholds), else 0.
func (c *Comparison) Run(ctx context.Context) (out report.Comparison, exit int, err error) {
	for _, s := range c.Servers {
		if err := c.Runner.Check(s, s.Before == ""); err != nil {
			return out, 0, badinput.Errorf("server %s: %v", s.Name, err)
		}
	}
	dir := filepath.Join(c.ResultsDir, c.ID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return out, 0, err
	}
	c.say("comparison %s: %s on %d servers (%s), each alone in turn: %s, then a limit search within %s",
		c.ID, c.Scenario, len(c.Servers), Names(c.Servers), c.Load, c.Objective)
	var in []report.ServerInput
	for i, s := range c.Servers {
		si, err := c.server(ctx, i, s, dir)
		if err != nil {
			return out, 1, err
		}
		in = append(in, si)
		if exit == 0 {
			exit = si.RunExit
		}
	}
	if out, err = report.CompareServers(c.ID, c.Scenario, c.Load, c.Objective, in); err != nil {
		return out, 1, err
	}
	if err := report.ComparisonFiles(dir, out); err != nil {
		return out, 1, err
	}
	return out, exit, nil
}

// server runs server i's turn: its before command, the fixed load, the search.
func (c *Comparison) server(ctx context.Context, i int, s Server, dir string) (report.ServerInput, error) {
	si := report.ServerInput{Name: s.Name, Target: s.Target, Protocol: s.Protocol, Notes: s.Notes, Before: s.Before, Version: s.Version}
	turn := fmt.Sprintf("%s (%d of %d)", s.Name, i+1, len(c.Servers))
	if s.Before != "" {
		c.say("%s: before its turn, %s", turn, s.Before)
		if err := limit.RunHook(ctx, s.Before, filepath.Join(dir, s.Name+"-before.log"), s.Environ(), "IMBENCH_SERVER="+s.Name); err != nil {
			return si, fmt.Errorf("server %s: the before command %w: the comparison stops here", s.Name, err)
		}
		if err := c.Runner.Check(s, true); err != nil {
			return si, fmt.Errorf("server %s, after its before command: %v: the comparison stops here", s.Name, err)
		}
	}
	runID := c.RunID(i)
	if s.Warmup != "" {
		c.say("%s: warming it up: the workload for %s, run %sw (not measured)", turn, s.Warmup, runID)
		if exit := c.Runner.Warm(s, runID+"w"); exit != 0 && exit != 99 {
			return si, fmt.Errorf("server %s: the warm-up run ended with exit %d: the comparison stops here", s.Name, exit)
		}
		si.Warmup = s.Warmup
	}
	c.say("%s: the fixed load, run %s", turn, runID)
	si.RunExit, si.Verdict = c.Runner.Run(s, runID)
	si.RunDir = filepath.Join(c.ResultsDir, runID)
	if _, err := os.Stat(filepath.Join(si.RunDir, "summary.json")); err != nil {
		return si, fmt.Errorf("server %s: the fixed-load run ended (exit %d) with no summary: the comparison stops here", s.Name, si.RunExit)
	}
	si.Usage, si.UsageSeconds = limit.ReadTargetUsage(si.RunDir)
	if c.NoLimit {
		return si, nil
	}
	searchID := c.SearchID(i)
	c.say("%s: the limit search %s", turn, searchID)
	si.LimitExit = c.Runner.Limit(s, searchID)
	if _, err := limit.Load(filepath.Join(c.ResultsDir, searchID)); err == nil {
		si.LimitDir = filepath.Join(c.ResultsDir, searchID)
	} else if c.Errs != nil {
		fmt.Fprintf(c.Errs, "imbench: %s: the limit search ended (exit %d) with no limit.json: its column says not searched\n", s.Name, si.LimitExit)
	}
	return si, nil
}

func (c *Comparison) say(format string, a ...any) {
	if c.Out != nil {
		fmt.Fprintf(c.Out, "imbench: "+format+"\n", a...)
	}
}
