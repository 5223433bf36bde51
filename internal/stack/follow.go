package stack

import (
	"fmt"
	"os"
	"syscall"
)

// Follow points the native stack, when this checkout's is up, at a run's
// target beside every other run's: this process registers its target's
// scrape targets and discovery (.run/prometheus/runs/<pid>.json), and
// Prometheus scrapes what all live registrations name, so that concurrent
// runs from one checkout keep their own jobs. process-exporter groups this
// machine's processes as the profiles (with their local overrides) say.
// What changed is applied at once (Prometheus reloads its config,
// process-exporter restarts); each note says what was done, or what to
// run where the stack answering is not this checkout's. release takes the
// registration back when the run ends (a registration whose process is
// gone is dropped by the next render too).
func Follow(target string) (notes []string, release func(), err error) {
	release = func() {}
	a := Addrs()
	svcs, err := services(false, false)
	if err != nil {
		return nil, release, err
	}
	byName := map[string]service{}
	for _, s := range svcs {
		byName[s.name] = s
	}
	prom, pe := byName["prometheus"], byName["process-exporter"]
	promPid, ours := running(prom)
	if !ours {
		if Healthy("http://" + a.Prometheus + "/-/ready") {
			notes = append(notes, fmt.Sprintf("Prometheus at %s is not this checkout's stack and does not say where its own is "+
				"(started before imbench gave it absolute paths): it scrapes what its config says, not %s's metrics; "+
				"`make down && make up` in its own checkout lets runs from here register with it", a.Prometheus, target))
		}
		return notes, release, nil
	}
	reg, err := newRegistration(os.Getpid(), target)
	if err != nil {
		return notes, release, err
	}
	if err := reg.write(); err != nil {
		return notes, release, err
	}
	release = func() {
		reg.remove()
		applyScrapes(promPid)
	}
	changed, discovery, err := renderScrapes()
	if err != nil {
		return notes, release, err
	}
	if reg.Discovery != "" && discovery != reg.Discovery {
		notes = append(notes, fmt.Sprintf("Prometheus discovers OpenIM services at %s for a run that began before this one: this run's %s is not discovered "+
			"until that run ends (its fixed addresses, %s, are scraped all the same)", discovery, reg.Discovery, reg.fixedText()))
	}
	if changed {
		if err := syscall.Kill(promPid, syscall.SIGHUP); err != nil {
			return notes, release, fmt.Errorf("reloading Prometheus (pid %d): %w", promPid, err)
		}
		notes = append(notes, fmt.Sprintf("Prometheus reloaded its config: it scrapes this run's %s beside the other runs' targets", target))
	}
	if _, ok := running(pe); ok {
		changed, err := renderProcessExporter()
		if err != nil {
			return notes, release, err
		}
		if changed {
			stop(pe)
			if err := start(pe); err != nil {
				return notes, release, fmt.Errorf("restarting process-exporter with the profiles' groups: %w", err)
			}
			notes = append(notes, "process-exporter restarted with the profiles' process groups (a local override changed)")
		}
	}
	return notes, release, nil
}

// applyScrapes renders the scrapes of the registrations left and reloads
// Prometheus if they changed.
func applyScrapes(promPid int) {
	if changed, _, err := renderScrapes(); err == nil && changed {
		syscall.Kill(promPid, syscall.SIGHUP)
	}
}
