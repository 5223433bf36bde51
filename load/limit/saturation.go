package limit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/imbench/imbench/load/procgroup"
)

// saturation names what gave out first: the rules, tried in the order of
// Rules, over the step at the knee (or the last one, where none broke; or,
// where they see nothing there, a run of the knee again that broke). Each
// rule is one line beside the code that applies it (// rule "<name>": …);
// docs/limit.md's table says them in full, and a test keeps the two alike.
func (r *Result) saturation() Saturation {
	st := r.Step(r.KneeStep)
	if st == nil && len(r.Steps) > 0 {
		st = &r.Steps[len(r.Steps)-1]
	}
	if st == nil {
		return Saturation{Rule: RuleUnseen, Why: "no step ran"}
	}
	base := r.baseline()
	sat := saturationOf(st, base, r.Machine)
	// A knee run again broke again: what one of its runs saw give out
	// is the knee's, where the first saw nothing (a thread at its core
	// reads a few points under it in one run of two).
	for i := 0; sat.Rule == RuleUnseen && i < len(r.Steps); i++ {
		again := &r.Steps[i]
		if again.N > st.N && again.Asked == st.Asked && !again.Held && again.Disturbed == "" {
			if s := saturationOf(again, base, r.Machine); s.Rule != RuleUnseen {
				sat = s
			}
		}
	}
	return sat
}

// The rules, as limit.json and the step table name them.
const (
	RuleGeneratorOpenFiles = "generator open files"
	RuleServerOpenFiles    = "server open files"
	RuleGeneratorQuota     = "generator CPU quota"
	RuleGeneratorCores     = "generator cores"
	RuleServerThread       = "server thread at a core"
	RuleServerThreadWaited = "server thread never idle"
	RuleServerCores        = "server at its pinned cores"
	RuleServerSharedCores  = "server's parts at the cores they share"
	RuleMachineGenerator   = "machine busy, generator largest"
	RuleMachine            = "machine busy, other processes"
	RuleServerMachine      = "machine busy, server largest"
	RuleServerMemory       = "server memory growing"
	RuleSenders            = "too few senders"
	RuleServerPace         = "server answers slowed"
	RuleUnseen             = "nothing seen saturated"
)

// Rules are the saturation rules in the order they are tried.
var Rules = []string{RuleGeneratorOpenFiles, RuleServerOpenFiles, RuleGeneratorQuota, RuleGeneratorCores, RuleServerCores,
	RuleServerThread, RuleServerSharedCores, RuleMachineGenerator, RuleMachine, RuleServerMachine, RuleServerThreadWaited,
	RuleServerMemory, RuleSenders, RuleServerPace, RuleUnseen}

// disturbedBy says why a step that broke the objective broke for what
// ran beside the search rather than the server: other processes took a
// quarter of the machine's cores or more while the step ran ("" when it
// broke for the server, or for what no neighbour changes: open files, the
// generator's quota, the generator at its own cores, a part of the server
// whose thread had its whole core all the same).
func disturbedBy(st *Step, sat Saturation, m Machine) string {
	switch sat.Rule {
	case RuleGeneratorOpenFiles, RuleServerOpenFiles, RuleGeneratorQuota, RuleGeneratorCores, RuleServerThread, RuleServerCores, RuleServerSharedCores:
		return ""
	}
	server, gen, others := shares(st, m)
	if st.Held || st.MachineBusy == 0 || m.Cores == 0 || others < 25*float64(m.Cores) {
		return ""
	}
	return fmt.Sprintf("other processes took %.0f %% of one core while it ran (the machine's %d cores %.0f %% busy; the server's parts %.0f %%, the generator %.0f %%)",
		others, m.Cores, 100*st.MachineBusy, server, gen)
}

// shares splits a step's CPU, in % of one core: the server's parts, the
// generator, and the machine's other processes (0 where the machine's
// busy share is unknown).
func shares(st *Step, m Machine) (server, gen, others float64) {
	gen = st.GeneratorCores * 100
	for _, u := range st.Usage {
		if u.Role == "target" {
			server += u.CPUAvg
		}
	}
	if st.MachineBusy > 0 {
		others = max(0, 100*st.MachineBusy*float64(m.Cores)-server-gen)
	}
	return server, gen, others
}

// baseline is the step at the search's lowest load: the server's answer
// time when nothing queued.
func (r *Result) baseline() *Step {
	var b *Step
	for i := range r.Steps {
		if b == nil || r.Steps[i].Asked < b.Asked {
			b = &r.Steps[i]
		}
	}
	return b
}

// saturationOf applies the rules to step st on machine m (0 cores:
// unknown), base the step at the lowest load (nil: st).
func saturationOf(st, base *Step, m Machine) Saturation {
	if base == nil {
		base = st
	}
	cores := m.Cores
	var target []Usage
	busy := st.GeneratorCores * 100
	for _, u := range st.Usage {
		if u.Role == "target" {
			target = append(target, u)
		}
		if u.Role != "generator" {
			busy += u.CPUAvg
		}
	}
	sort.Slice(target, func(i, j int) bool { return target[i].CPUAvg > target[j].CPUAvg })
	advice := "run the generator on more cores or machines (SEGMENTS=n, or segments on other hosts), or lower what each message costs it"
	// A step that fell short of its load with the generator near its
	// cores was held back by the generator, whatever the server's parts
	// show: their queues grow when the generator reads slowly too.
	full := 0.9
	short := shortfall(st)
	if short != "" {
		full = 0.8
	}
	// rule "generator open files": logins failed for EMFILE/ENFILE or EADDRNOTAVAIL at the generator.
	if f := st.Summary.Users.LoginFailures; f != nil && f.OpenFiles+f.Ports > 0 {
		why := fmt.Sprintf("%d login attempts at step %d found the generator's open files at their limit", f.OpenFiles, st.N)
		if m.GeneratorOpenFiles > 0 {
			why += fmt.Sprintf(" (ulimit -n %d)", m.GeneratorOpenFiles)
		}
		if f.Ports > 0 {
			why = fmt.Sprintf("%s, and %d found no local port left to dial from", why, f.Ports)
		}
		return Saturation{Rule: RuleGeneratorOpenFiles, Component: "imbench", Generator: true, Why: why,
			Advice: "raise the generator's open files (ulimit -n, as make bench does) or split the users over segments and source addresses (SEGMENTS=n)"}
	}
	// rule "server open files": a listening part's descriptors within 1 % of its ulimit -n.
	for _, u := range target {
		if l := u.OpenFilesLimit; l > 0 && u.OpenFiles+max(2, l/100) >= l {
			return Saturation{Rule: RuleServerOpenFiles, Component: u.Component,
				Why: fmt.Sprintf("%s's open files reached its limit at step %d: %d of %d (its ulimit -n, PID %s): a connection past it is not accepted (too many open files)",
					u.Component, st.N, u.OpenFiles, l, pidsText(u.PIDs)),
				Advice: "raise the server's open files (ulimit -n before it starts, LimitNOFILE= in its systemd unit, ulimits: nofile in compose), then search again"}
		}
	}
	// rule "generator CPU quota": its cgroup throttled it in 5 % of its periods or more (a
	// stall of most of a 100 ms period every two seconds, which a percentile shows).
	if st.GeneratorThrottled >= 0.05 {
		why := fmt.Sprintf("the generator was held back by its CPU quota in %.0f %% of its scheduling periods at step %d", 100*st.GeneratorThrottled, st.N)
		if m.GeneratorCoresWhy != "" {
			why += " (" + m.GeneratorCoresWhy + ")"
		}
		if short != "" {
			why += "; " + short
		}
		return Saturation{Rule: RuleGeneratorQuota, Component: "imbench", Generator: true, Why: why,
			Advice: "raise the generator's CPU limit (its cgroup's quota, a pod's resources.limits.cpu), or run it on more of them"}
	}
	// rule "generator cores": it used 90 % of the cores it may use (80 % where the step fell short).
	if may := min(m.GeneratorCores, float64(cores)); may > 0 && st.GeneratorCores >= full*may {
		why := fmt.Sprintf("the generator used %.2f of the %s cores it may use at step %d", st.GeneratorCores, num(may), st.N)
		if short != "" {
			why += "; " + short
		}
		return Saturation{Rule: RuleGeneratorCores, Component: "imbench", Generator: true, Advice: advice, Why: why}
	}
	// rule "server at its pinned cores": a part pinned to fewer CPUs than the machine's used 90 % of them.
	for _, u := range target {
		if u.CPUs > 0 && u.CPUs < cores && u.CPUAvg >= 90*float64(u.CPUs) {
			return Saturation{Rule: RuleServerCores, Component: u.Component,
				Why: fmt.Sprintf("%s used %.0f %% of one core at step %d, of the %d %s it may run on (its CPU affinity): its cores were full",
					u.Component, u.CPUAvg, st.N, u.CPUs, map[bool]string{true: "core", false: "cores"}[u.CPUs == 1])}
		}
	}
	// On a virtual machine a thread has its core less what the host ran
	// there for others (steal), which it is not charged for.
	stolen, host := 100*st.MachineStolen, ""
	if stolen >= 1 {
		host = fmt.Sprintf(" less the %.0f %% its host took", stolen)
	}
	// rule "server thread at a core": a part's busiest thread at 90 % of one core, steal counted in.
	for _, u := range target {
		if u.CPUBusiestThread+stolen >= 90 {
			return Saturation{Rule: RuleServerThread, Component: u.Component,
				Why: fmt.Sprintf("%s's busiest thread used %.0f %% of one core at step %d (the part %.0f %% in all): its work runs on that thread, and that core%s was full",
					u.Component, u.CPUBusiestThread, st.N, u.CPUAvg, host)}
		}
	}
	if sat, ok := sharedCores(st, target, cores); ok {
		return sat
	}
	if st.MachineBusy > 0 {
		busy = 100 * st.MachineBusy * float64(cores)
	}
	if cores > 0 && busy >= 90*float64(cores) {
		var server float64
		for _, u := range target {
			server += u.CPUAvg
		}
		others := busy - server - st.GeneratorCores*100
		// rule "machine busy, generator largest": the machine's cores 90 % busy, the generator the largest user.
		if gen := st.GeneratorCores * 100; gen >= server && gen >= others {
			why := fmt.Sprintf("the machine's %d cores were busy at step %d, the generator the largest user (%.0f %% of one core, the server's parts %.0f %%, other processes %.0f %%)",
				cores, st.N, gen, server, others)
			if short != "" {
				why += "; " + short
			}
			return Saturation{Rule: RuleMachineGenerator, Component: "imbench", Generator: true, Why: why,
				Advice: "run the generator on another machine than the server's, or on more of them (segments on other hosts)"}
		}
		// rule "machine busy, other processes": the machine's cores 90 % busy, others above the server (a break that repeated is the server's all the same: the rules after this one name it).
		if (len(target) == 0 || others > server) && !strings.HasPrefix(st.Evidence, "repeated") {
			return Saturation{Rule: RuleMachine, Component: "the machine",
				Why: fmt.Sprintf("the machine's %d cores were busy at step %d (%.0f %% of one core in all: the server's parts %.0f %%, the generator %.0f %%, other processes %.0f %%): "+
					"what ran beside the server took its room", cores, st.N, busy, server, st.GeneratorCores*100, others),
				Advice: "run the search on a machine with nothing else running, or with the generator on another host"}
		}
		// rule "machine busy, server largest": the machine's cores 90 % busy, the server the largest user.
		if server >= others {
			return Saturation{Rule: RuleServerMachine, Component: target[0].Component,
				Why: fmt.Sprintf("the machine's %d cores were busy at step %d (%.0f %% of one core in all, the generator's %.0f %% included); the server's largest part, %s, used %.0f %%",
					cores, st.N, busy, st.GeneratorCores*100, target[0].Component, target[0].CPUAvg)}
		}
	}
	// rule "server thread never idle": the machine not full (or its break repeated), a part's least idle thread ran or waited 90 % of the step.
	for _, u := range target {
		if u.ThreadRunnable+stolen >= 90 && u.ThreadWaiting > 0 {
			return Saturation{Rule: RuleServerThreadWaited, Component: u.Component,
				Why: fmt.Sprintf("%s's least idle thread ran %.0f %% of step %d and waited for a core %.0f %% more (the part %.0f %% of one core in all): it never slept; its work runs on that thread, which other threads kept off its core part of the time",
					u.Component, u.ThreadRunnable-u.ThreadWaiting, st.N, u.ThreadWaiting, u.CPUAvg)}
		}
	}
	if short != "" && !serverSlowed(st, base) {
		return waited(st, base, target, short)
	}
	// rule "server memory growing": by a tenth through the step, and twice what it grew at the lowest load.
	for _, u := range target {
		if u.RSSAvg > 0 && u.RSSGrowth > 0.1*u.RSSAvg && u.RSSGrowth > 2*rssGrowth(base, u.Component) {
			return Saturation{Rule: RuleServerMemory, Component: u.Component,
				Why: fmt.Sprintf("%s's memory grew by %s through step %d: it queues what it does not serve", u.Component, mib(u.RSSGrowth), st.N)}
		}
	}
	if short != "" {
		return waited(st, base, target, short)
	}
	// rule "nothing seen saturated": none of the above (a lock, the disk, the network, a database elsewhere).
	if len(st.Usage) == 0 {
		return Saturation{Rule: RuleUnseen, Why: "no resource figures for the step (no Prometheus, and the server's processes are not on this machine)"}
	}
	return Saturation{Rule: RuleUnseen, Why: "no part of the server reached a core, nor the machine its cores: the limit lies in what the resource table does not show (a lock, the disk, the network, a database elsewhere)"}
}

// sharedCores: parts pinned together to fewer cores than the machine's (a
// server of many processes under one taskset) that used them all between
// them, though no part alone shows it. target is sorted by CPU, the
// largest first.
func sharedCores(st *Step, target []Usage, cores int) (Saturation, bool) {
	seen := map[string]bool{}
	for _, u := range target {
		n := procgroup.CountCPUs(u.CPUSet)
		if seen[u.CPUSet] || n == 0 || cores > 0 && n >= cores {
			continue
		}
		seen[u.CPUSet] = true
		var sum float64
		var parts []string
		for _, p := range target {
			if p.CPUSet == u.CPUSet {
				sum += p.CPUAvg
				parts = append(parts, fmt.Sprintf("%s %.0f %%", p.Component, p.CPUAvg))
			}
		}
		if sum < 90*float64(n) {
			continue
		}
		// rule "server's parts at the cores they share": pinned together to fewer CPUs, 90 % of them used between them.
		if len(parts) > 4 {
			parts = append(parts[:3], fmt.Sprintf("%d more", len(parts)-3))
		}
		return Saturation{Rule: RuleServerSharedCores, Component: u.Component,
			Why: fmt.Sprintf("the server's parts pinned to CPU %s used %.0f %% of one core between them at step %d, of the %d %s they may run on (their CPU affinity): %s; those cores were full",
				u.CPUSet, sum, st.N, n, map[bool]string{true: "core", false: "cores"}[n == 1], strings.Join(parts, ", "))}, true
	}
	return Saturation{}, false
}

// rssGrowth is how much a part's memory grew through step st (the
// lowest load's, to which a growth is compared: a server that was just
// started grows as much at any load).
func rssGrowth(st *Step, component string) float64 {
	for _, u := range st.Usage {
		if u.Component == component {
			return u.RSSGrowth
		}
	}
	return 0
}

// serverSlowed says whether the senders, answered as fast as at the
// lowest load, would have sent what st asked: if so, the server's slower
// answers set the pace.
func serverSlowed(st, base *Step) bool {
	return st != base && base.AckAvg > 0 && st.Achieved*st.AckAvg/base.AckAvg >= 0.95*st.Asked
}

// waited names why a step sent less than asked while the generator had
// cores to spare: its senders were waiting for answers.
func waited(st, base *Step, target []Usage, short string) Saturation {
	inFlight := st.Achieved * st.AckAvg / 1000 // Little's law: the senders waiting at a time
	// What the same senders would have sent, answered as fast as at the
	// lowest load.
	could := 0.0
	if base.AckAvg > 0 {
		could = st.Achieved * st.AckAvg / base.AckAvg
	}
	// rule "too few senders": short, answers as quick as at the lowest load: each sender waits for its answer.
	if !serverSlowed(st, base) {
		return Saturation{Rule: RuleSenders, Component: "imbench", Generator: true,
			Why: fmt.Sprintf("%s: the server answered in %.2f ms on average (%.2f ms at %g), and with about %.1f messages in flight, each sender waiting for its answer before its next message, its senders could not send more at that pace",
				short, st.AckAvg, base.AckAvg, base.Asked, inFlight),
			Advice: "give the scenario more senders for this rate (a larger SCALE, or more users sending), each keeping one message in flight"}
	}
	// rule "server answers slowed": short, answers slower than at the lowest load: the server set the pace.
	why := fmt.Sprintf("%s: the server's answers slowed from %.2f ms on average at %g to %.2f ms; each sender waits for its answer before its next message (about %.1f in flight), so the server set the pace (answered as at %g, they would have sent %.0f msg/s)",
		short, base.AckAvg, base.Asked, st.AckAvg, inFlight, base.Asked, could)
	if len(target) == 0 {
		return Saturation{Rule: RuleServerPace, Component: "the server", Why: why + "; no figures of its parts"}
	}
	return Saturation{Rule: RuleServerPace, Component: target[0].Component,
		Why: fmt.Sprintf("%s; its largest part, %s, used %.0f %% of one core, no core nor the machine full: the limit lies in what the resource table does not show (a lock, a queue, the disk)",
			why, target[0].Component, target[0].CPUAvg)}
}

func mib(b float64) string { return fmt.Sprintf("%.0f MiB", b/(1<<20)) }

func pidsText(pids []int) string {
	var out []string
	for _, p := range pids {
		out = append(out, fmt.Sprint(p))
	}
	return strings.Join(out, ", ")
}
