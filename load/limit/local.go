package limit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/cpulimit"
	"github.com/imbench/imbench/load/procgroup"
)

// Stepper runs one step of a search: a whole run of the workload at one
// load, as run r.RunID, its results in r.Dir. A step that ends without a
// summary, or early, is an error: the search stops there.
type Stepper interface {
	RunStep(ctx context.Context, r StepRun) (summary.Summary, error)
}

// StepRun is what a step is to run: its load set by Env.
type StepRun struct {
	N         int
	Asked     float64
	Dimension string // what Asked counts: "rate" or "users"
	RunID     string
	Dir       string
	// Env sets the step's load (IM_RATE and IM_DURATION, or IM_USERS and
	// IM_HOLD) and its run id (IM_RUN_ID).
	Env []string
}

// Search is a limit search on this machine: the server's parts sampled
// from /proc (or, where they run elsewhere, RemoteUsage), the generator's
// own CPU, a server given time to settle after a broken step and the
// machine to quiet after a disturbed one.
type Search struct {
	ID, Scenario string
	Target       profile.Profile
	// Sampled are the process groups sampled each second: the target's
	// and the stack's (nil: the target's).
	Sampled    []profile.Process
	Ports      []int // the run's ports: their listening owners are the target measured
	Params     Params
	Objective  Objective
	StepTime   time.Duration // sending per step (rate), holding (users)
	ResultsDir string
	BeforeStep string // a shell command run before each step
	Steps      Stepper
	Out        io.Writer // the search's lines
	// Roles maps process groups to their role (target, stack, generator).
	Roles map[string]string
	// RemoteUsage reads a step's usage where none of the server's parts
	// runs on this machine (the resource table's series); nil: none.
	RemoteUsage RemoteUsage
	// PromWrite, where set, receives the search's state series.
	PromWrite string
	// Showing is told each step before it runs (the live view).
	Showing func(n int, runID, text string)
	// Waits bound the settling; zero: the defaults.
	Waits Waits
}

// Waits bound how long a search waits between steps.
type Waits struct {
	Settle       time.Duration // for a server to work off a broken step's backlog (3 min)
	SettleAbsent time.Duration // the same where none of its processes runs here (1 min)
	Quiet        time.Duration // for the machine's other processes to quiet (5 s: a run again decides, quiet or not)
}

func (w *Waits) defaults() {
	if w.Settle == 0 {
		w.Settle = 3 * time.Minute
	}
	if w.SettleAbsent == 0 {
		w.SettleAbsent = time.Minute
	}
	if w.Quiet == 0 {
		w.Quiet = 5 * time.Second
	}
}

// StepID is step n's run id: <search id>_s<n>.
func StepID(searchID string, n int) string { return fmt.Sprintf("%s_s%d", searchID, n) }

// Start runs the search: every step through s.Steps, its usage measured
// here. An error with no step is the search's refusal; with steps, what
// stopped it (the result says so too).
func (s *Search) Start(ctx context.Context) (Result, error) {
	s.Waits.defaults()
	groups := s.Sampled
	if groups == nil {
		groups = s.Target.Processes
	}
	sampler, err := procgroup.Start(groups, time.Second, s.Ports...)
	if err != nil {
		return Result{}, err
	}
	defer sampler.Stop()
	if line := measuredLine(sampler, s.Ports); line != "" {
		s.say("%s", line)
	}
	gen := startSelfSampler()
	defer gen.stop()
	own := cpulimit.Own()
	cores := procgroup.MachineCores() // the machine's, not this process's affinity (LIMIT_CPUS)
	machine := Machine{Cores: cores, GeneratorCores: own.Cores, GeneratorCoresWhy: own.Why}
	var nofile syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &nofile) == nil {
		machine.GeneratorOpenFiles = nofile.Cur
	}
	if own.Cores < float64(cores) {
		s.say("the generator may use %s: %s", coresText(own.Cores), own.Why)
	}
	series := newSearchSeries(s.PromWrite, s.ID, s.Scenario, s.Target.Name, s.Out)
	var prev *Step
	lo, hi := 0.0, 0.0
	dim := s.Params.Dimension
	res, err := Run(ctx, s.Params, s.Objective, machine, func(ctx context.Context, n int, asked float64) (Step, error) {
		dir := filepath.Join(s.ResultsDir, StepID(s.ID, n))
		if s.BeforeStep != "" {
			s.say("step %d: before it, %s", n, s.BeforeStep)
			err := RunHook(ctx, s.BeforeStep, filepath.Join(dir, "before-step.log"), nil,
				"IMBENCH_STEP="+strconv.Itoa(n), "IMBENCH_LOAD="+strconv.FormatFloat(asked, 'f', -1, 64))
			if err != nil {
				return Step{}, fmt.Errorf("step %d: the before-step command %w", n, err)
			}
			sampler.Rediscover() // a restarted server has other PIDs
		}
		var settled, quieted time.Duration
		if prev != nil && !prev.Held {
			settled = s.settle(ctx, sampler)
		}
		if prev != nil && prev.Disturbed != "" {
			quieted = s.quiet(ctx, sampler, gen, cores)
		}
		s.say("step %d: %s", n, LoadText(asked, dim))
		series.starting(n, asked)
		if s.Showing != nil {
			s.Showing(n, StepID(s.ID, n), fmt.Sprintf("limit search %s, step %d: %s asked (%s); held so far %s, broken %s; objective %s",
				s.ID, n, LoadText(asked, dim), s.Scenario+" on "+s.Target.Name, LoadText(lo, dim), LoadText(hi, dim), s.Objective.Text))
		}
		st, err := s.step(ctx, n, asked, dir, sampler, gen)
		st.Settled = math.Round(settled.Seconds()*10) / 10
		st.Quieted = math.Round(quieted.Seconds()*10) / 10
		return st, err
	}, func(st Step) {
		prev = &st
		if st.Held {
			lo = max(lo, st.Asked)
		} else if hi == 0 || st.Asked < hi {
			hi = st.Asked
		}
		series.judged(st, lo, hi)
		s.say("%s", StepLine(st, dim))
	})
	res.SearchID, res.Scenario, res.Target, res.BeforeStep = s.ID, s.Scenario, s.Target.Name, s.BeforeStep
	return res, err
}

// step runs step n and reads its figures, and the machine's over it.
func (s *Search) step(ctx context.Context, n int, asked float64, dir string, sampler *procgroup.Sampler, gen *selfSampler) (Step, error) {
	r := StepRun{N: n, Asked: asked, Dimension: s.Params.Dimension, RunID: StepID(s.ID, n), Dir: dir}
	r.Env = append(s.stepEnv(asked), "IM_RUN_ID="+r.RunID)
	t0, quota := cpulimit.OwnThrottle()
	sum, err := s.Steps.RunStep(ctx, r)
	if err != nil {
		return Step{}, err
	}
	dim := s.Params.Dimension
	st := stepOf(n, asked, r.RunID, sum, dim)
	from, to := stepWindow(sum, dim)
	st.GeneratorCores = gen.cores(from, to)
	if t1, ok := cpulimit.OwnThrottle(); ok && quota {
		st.GeneratorThrottled = math.Round(t1.Share(t0)*1000) / 1000
	}
	st.MachineBusy = sampler.MachineBusy(from, to)
	st.MachineStolen = sampler.MachineStolen(from, to)
	st.Usage = UsageOver(ctx, sampler, s.Roles, s.RemoteUsage, sum, from, to)
	st.Left = leftBy(dir)
	return st, nil
}

// stepEnv sets a step's load: the open classes' rate and the sending time,
// or the users held and the holding time.
func (s *Search) stepEnv(asked float64) []string {
	if s.Params.Dimension == "users" {
		// Users that cannot get on cost the step its time, not their
		// retries × timeouts, and a step whose objective is lost once they
		// logged in does not hold them.
		stop, _ := json.Marshal(s.Objective.Thresholds)
		return []string{"IM_USERS=" + strconv.Itoa(int(asked)), "IM_HOLD=" + s.StepTime.String(),
			"IM_LOGIN_WITHIN=" + s.StepTime.String(), "IM_STOP_WHEN_LOST=" + string(stop)}
	}
	return []string{"IM_RATE=" + strconv.FormatFloat(asked, 'f', -1, 64), "IM_DURATION=" + s.StepTime.String()}
}

func (s *Search) say(format string, a ...any) {
	if s.Out != nil {
		fmt.Fprintf(s.Out, "imbench: "+format+"\n", a...)
	}
}

// coresText is "1 core", "2 cores", "0.3 of a core".
func coresText(n float64) string {
	switch {
	case n == 1:
		return "1 core"
	case n < 1:
		return strconv.FormatFloat(n, 'f', -1, 64) + " of a core"
	}
	return strconv.FormatFloat(n, 'f', -1, 64) + " cores"
}
