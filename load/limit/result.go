package limit

import (
	"fmt"
	"math"

	"github.com/imbench/imbench/internal/summary"
)

// Step is one step of a search: a whole run of the scenario at one load,
// every delivery verified, and what the server's parts and the generator
// used meanwhile.
type Step struct {
	N     int     `json:"n"`
	Asked float64 `json:"asked"` // msg/s, or users
	RunID string  `json:"run_id"`
	// What the step achieved, per second of its sending (users: online):
	// the open classes' messages, the load the search controls.
	Achieved float64 `json:"achieved"`
	// Closed is the closed-loop classes' messages a second beside them
	// (each sender as fast as answered): load the search does not control.
	Closed     float64 `json:"closed_per_second,omitempty"`
	Acked      float64 `json:"acked_per_second"`
	Deliveries float64 `json:"deliveries_per_second"`
	Expected   int64   `json:"expected_deliveries"` // none: no delivery to verify (a send-only scenario)
	Online     int64   `json:"online"`
	E2EP50     float64 `json:"e2e_p50_ms"`
	E2EP99     float64 `json:"e2e_p99_ms"`
	AckAvg     float64 `json:"ack_avg_ms"`
	AckP50     float64 `json:"ack_p50_ms"`
	AckP99     float64 `json:"ack_p99_ms"`
	// The logins' time to online (a users search's objective).
	LoginP50 float64 `json:"login_p50_ms,omitempty"`
	LoginP99 float64 `json:"login_p99_ms,omitempty"`
	// Figures are the latencies the objective names (ack_avg, e2e_p95, …),
	// in ms: what the knee chart draws.
	Figures    map[string]float64 `json:"objective_figures,omitempty"`
	Lost       int64              `json:"lost"`
	Late       int64              `json:"late"`
	Unchecked  int64              `json:"unchecked,omitempty"` // undelivered, the server's store read unanswered
	Unanswered int64              `json:"unanswered"`
	Unsent     int64              `json:"unsent"`
	// The objective on this step: held, or the conditions broken.
	Held   bool     `json:"held"`
	Broken []string `json:"broken,omitempty"`
	// FellShort: the step met the objective's figures but did not put out
	// the load it asked (it did not hold, for all that).
	FellShort bool `json:"fell_short,omitempty"`
	// Usage over the step: the server's process groups (role target),
	// the generator, the rest of the host; from the resource table's
	// series, or sampled from /proc where no Prometheus ran.
	Usage []Usage `json:"usage,omitempty"`
	// The generator, this process: CPU in cores over the step.
	GeneratorCores float64 `json:"generator_cores"`
	// MachineBusy is the machine's busy share of all its cores over the
	// step (0..1; 0: unknown), whoever used them.
	MachineBusy float64 `json:"machine_busy,omitempty"`
	// MachineStolen is the share of all the machine's cores its host ran
	// for others over the step (steal, on a virtual machine; 0..1), of
	// MachineBusy.
	MachineStolen float64 `json:"machine_stolen,omitempty"`
	// GeneratorThrottled: the share of its CPU quota's periods in which
	// the generator was held back over the step (0 without a quota).
	GeneratorThrottled float64 `json:"generator_throttled,omitempty"`
	// Cause is what the rules name for a step that broke the objective.
	Cause *Saturation `json:"cause,omitempty"`
	// Disturbed: the step broke while other processes took the machine's
	// cores; it is no knee, and the search ran its load again.
	Disturbed string `json:"disturbed,omitempty"`
	// Evidence is what decided a step that broke while other processes
	// took the machine's cores: its break repeated ("repeated: …", the
	// server's), or the server was starved of its cores ("starved: …").
	Evidence string `json:"evidence,omitempty"`
	// Confirm: the step ran the limit found again, to confirm it.
	Confirm bool `json:"confirm,omitempty"`
	// Recheck: the step ran the knee found again, to confirm it.
	Recheck        bool   `json:"recheck,omitempty"`
	GeneratorBound bool   `json:"generator_bound,omitempty"`
	GeneratorWhy   string `json:"generator_why,omitempty"`
	// Settled is how long the search waited, before this step, for the
	// server to work off the last broken step's backlog (seconds).
	Settled float64 `json:"settled_seconds,omitempty"`
	// Quieted is how long it waited, before this step, for the machine's
	// other processes to quiet after a step they disturbed (seconds).
	Quieted float64 `json:"quieted_seconds,omitempty"`
	// Left is what the step's clean-up left on the target ("" when it
	// removed everything it could): "3 users, 1 group".
	Left string `json:"left_on_target,omitempty"`

	Summary summary.Summary `json:"-"`
}

// Usage is one process group over a step: CPU in % of one core (as the
// resource table), resident memory, and its slope over the step.
type Usage struct {
	Component string  `json:"component"`
	Role      string  `json:"role"` // target, generator, other
	Processes float64 `json:"processes"`
	// PIDs are the processes measured (sampled from /proc): for a part
	// listening on the run's ports, its listening owners alone; Others
	// counts the processes of its name left out (the machine's).
	PIDs   []int `json:"pids,omitempty"`
	Others int   `json:"other_processes_of_the_name,omitempty"`
	// OpenFiles and OpenFilesLimit: the listening owner nearest its limit
	// of open files at its fullest over the step, and that limit (its soft
	// RLIMIT_NOFILE from /proc/<pid>/limits).
	OpenFiles      int `json:"open_files_peak,omitempty"`
	OpenFilesLimit int `json:"open_files_limit,omitempty"`
	// CPUs are the CPUs its listening owners may run on (their affinity:
	// a server started under taskset), where fewer than the machine's.
	CPUs int `json:"cpus_allowed,omitempty"`
	// CPUSet is the CPUs all the part's processes may run on ("1", "2-3"),
	// where fewer than the machine's: parts pinned together share them.
	CPUSet  string  `json:"cpu_set,omitempty"`
	CPUAvg  float64 `json:"cpu_avg_percent"`
	CPUPeak float64 `json:"cpu_peak_percent"`
	// CPUBusiest is the busiest process's average (sampled from /proc; 0
	// where only the group's sum is known).
	CPUBusiest float64 `json:"cpu_busiest_process_percent,omitempty"`
	// CPUBusiestThread is the busiest thread's average (from /proc too):
	// a part whose work runs on one thread shows that thread full.
	CPUBusiestThread float64 `json:"cpu_busiest_thread_percent,omitempty"`
	// ThreadRunnable is the share of the step, %, its least idle thread
	// was running or waiting for a core (its run-queue wait, from /proc
	// too), ThreadWaiting the part of it waiting: on a busy machine a
	// thread with a core's work runs less than a core and never sleeps.
	ThreadRunnable float64 `json:"thread_runnable_percent,omitempty"`
	ThreadWaiting  float64 `json:"thread_waiting_percent,omitempty"`
	RSSAvg         float64 `json:"rss_avg_bytes"`
	RSSPeak        float64 `json:"rss_peak_bytes"`
	// RSSGrowth is the memory's rise from the step's first quarter to its
	// last, bytes: a part still growing when the step ended.
	RSSGrowth float64 `json:"rss_growth_bytes"`
}

// Saturation is what gave out first at the knee.
type Saturation struct {
	Rule      string `json:"rule,omitempty"`      // the rule that named it (Rule…)
	Component string `json:"component,omitempty"` // a server process group, "the machine", or "imbench"
	Generator bool   `json:"generator,omitempty"` // the limit is the generator's, not the server's
	Why       string `json:"why"`
	Advice    string `json:"advice,omitempty"`
}

// Machine is where the search ran: the machine's cores, and those the
// generator (this process) may use (GOMAXPROCS).
type Machine struct {
	Cores int `json:"cores,omitempty"`
	// GeneratorCores: what the generator may use, the least of its
	// GOMAXPROCS, its CPU affinity and its cgroup's CPU quota (a fraction
	// of a core under a Kubernetes CPU limit); GeneratorCoresWhy names it.
	GeneratorCores    float64 `json:"generator_cores,omitempty"`
	GeneratorCoresWhy string  `json:"generator_cores_why,omitempty"`
	// GeneratorOpenFiles is the generator's limit of open files (its
	// soft RLIMIT_NOFILE, ulimit -n): a socket each user.
	GeneratorOpenFiles uint64 `json:"generator_open_files,omitempty"`
}

// Result is a whole search.
type Result struct {
	SearchID  string  `json:"search_id"`
	Scenario  string  `json:"scenario"`
	Target    string  `json:"target"`
	Params    Params  `json:"params"`
	Objective string  `json:"objective"`
	Steps     []Step  `json:"steps"`
	Machine   Machine `json:"machine"`
	Limit     float64 `json:"limit"`                // the highest load held (0: none held)
	LimitStep int     `json:"limit_step,omitempty"` // its step's n
	Knee      float64 `json:"knee,omitempty"`       // the lowest load that broke the objective above the limit
	KneeStep  int     `json:"knee_step,omitempty"`
	// Resolution reached: (knee − limit) / limit, where both are known.
	Reached          float64    `json:"resolution_reached,omitempty"`
	Saturated        Saturation `json:"saturated"`
	GeneratorLimited bool       `json:"generator_limited,omitempty"`
	// Confirmed: the limit held again when the search ran it once more.
	Confirmed bool `json:"confirmed,omitempty"`
	// KneeConfirmed: the knee broke again when the search ran it once more.
	KneeConfirmed bool `json:"knee_confirmed,omitempty"`
	// Spread is what the steps at the limit's load measured, run to run.
	Spread *Spread `json:"spread,omitempty"`
	// Undetermined: the machine's other processes kept taking its cores
	// at a load, run after run; HighestHeld is the most load held then,
	// and no limit is reported.
	Undetermined bool    `json:"undetermined,omitempty"`
	HighestHeld  float64 `json:"highest_held,omitempty"`
	// Drift says the server held less as the search went on: a load it
	// held broke at a later step, or a lower one did ("" when not).
	Drift   string `json:"drift,omitempty"`
	Stopped string `json:"stopped,omitempty"` // why the search ended before its resolution
	// BeforeStep is the command run before each step (-before-step).
	BeforeStep string `json:"before_step,omitempty"`
}

// Spread is the runs at the limit's load: how many held, and the range of
// what they sent (msg/s, or users online) and of their e2e p99.
type Spread struct {
	Runs        int     `json:"runs"`
	Held        int     `json:"held"`
	AchievedMin float64 `json:"achieved_min"`
	AchievedMax float64 `json:"achieved_max"`
	E2EP99Min   float64 `json:"e2e_p99_min_ms"`
	E2EP99Max   float64 `json:"e2e_p99_max_ms"`
	// The answer time's, for a search whose steps owed no delivery.
	AckP99Min float64 `json:"ack_p99_min_ms,omitempty"`
	AckP99Max float64 `json:"ack_p99_max_ms,omitempty"`
	// The logins' time, for a users search.
	LoginP99Min float64 `json:"login_p99_min_ms,omitempty"`
	LoginP99Max float64 `json:"login_p99_max_ms,omitempty"`
}

// spreadAt is the spread of the steps at a load (nil: none).
func (r *Result) spreadAt(load float64) *Spread {
	var sp *Spread
	for _, s := range r.Steps {
		if s.Asked != load || s.Disturbed != "" {
			continue
		}
		if sp == nil {
			sp = &Spread{AchievedMin: s.Achieved, AchievedMax: s.Achieved, E2EP99Min: s.E2EP99, E2EP99Max: s.E2EP99, AckP99Min: s.AckP99, AckP99Max: s.AckP99,
				LoginP99Min: s.LoginP99, LoginP99Max: s.LoginP99}
		}
		sp.Runs++
		if s.Held {
			sp.Held++
		}
		sp.AchievedMin, sp.AchievedMax = min(sp.AchievedMin, s.Achieved), max(sp.AchievedMax, s.Achieved)
		sp.E2EP99Min, sp.E2EP99Max = min(sp.E2EP99Min, s.E2EP99), max(sp.E2EP99Max, s.E2EP99)
		sp.AckP99Min, sp.AckP99Max = min(sp.AckP99Min, s.AckP99), max(sp.AckP99Max, s.AckP99)
		sp.LoginP99Min, sp.LoginP99Max = min(sp.LoginP99Min, s.LoginP99), max(sp.LoginP99Max, s.LoginP99)
	}
	return sp
}

// ExitUndetermined is `imbench limit`'s exit where other processes kept
// taking the machine's cores: no limit, and no threshold crossed either.
const ExitUndetermined = 4

// ExitCode is the search's exit: 0 with a limit (the server's, or the
// generator's said so), ExitUndetermined, or 99 where not even the
// smallest load held.
func (r Result) ExitCode() int {
	switch {
	case r.Undetermined:
		return ExitUndetermined
	case r.Limit == 0 && !r.GeneratorLimited:
		return 99
	}
	return 0
}

// finish sets the limit and the knee from the interval the steps left,
// and names what saturated at the knee.
func (r *Result) finish(lo, hi float64) {
	if r.Undetermined {
		r.HighestHeld, lo = lo, 0
	}
	r.Limit, r.LimitStep = lo, r.stepAt(lo, true)
	if lo > 0 {
		r.Spread = r.spreadAt(lo)
	}
	r.Drift = r.drift()
	if !math.IsInf(hi, 1) {
		r.Knee, r.KneeStep = hi, r.stepAt(hi, false)
	}
	if r.Limit > 0 && r.Knee > 0 {
		r.Reached = (r.Knee - r.Limit) / r.Limit
	}
	r.Saturated = r.saturation()
}

// drift finds the highest load held that a later step at that load or
// below broke (neither disturbed), the lowest such break: the server's
// capacity fell while the search ran.
func (r *Result) drift() string {
	var held, broke *Step
	for i := range r.Steps {
		h := &r.Steps[i]
		if !h.Held || h.Disturbed != "" || held != nil && h.Asked <= held.Asked {
			continue
		}
		for j := range r.Steps {
			b := &r.Steps[j]
			if b.N > h.N && !b.Held && b.Disturbed == "" && b.Asked <= h.Asked {
				if held != h || b.Asked < broke.Asked {
					held, broke = h, b
				}
			}
		}
	}
	if held == nil {
		return ""
	}
	dim := r.Params.Dimension
	if r.Params.Restarted {
		return fmt.Sprintf("the server held less at a later step, though started afresh before each: %s held at step %d, %s broke at step %d; "+
			"what it carries varies that much from one start to the next (the machine, its caches, its runtime's warm-up)",
			LoadText(held.Asked, dim), held.N, LoadText(broke.Asked, dim), broke.N)
	}
	return fmt.Sprintf("the server held less as the search went on: %s held at step %d, %s broke at step %d; its capacity fell while it ran "+
		"(a store, a cache or a heap growing with what it was sent), so its limit depends on how long it has run: restart it before each search to compare searches, or before each step (-before-step, BEFORE_STEP)",
		LoadText(held.Asked, dim), held.N, LoadText(broke.Asked, dim), broke.N)
}

// stepAt is the first step at a load that was not disturbed (the one
// that decided it).
func (r *Result) stepAt(load float64, held bool) int {
	for _, s := range r.Steps {
		if s.Asked == load && s.Disturbed == "" && s.Held == held {
			return s.N
		}
	}
	return 0
}

// Step returns step n (nil if there is none).
func (r *Result) Step(n int) *Step {
	for i := range r.Steps {
		if r.Steps[i].N == n {
			return &r.Steps[i]
		}
	}
	return nil
}
