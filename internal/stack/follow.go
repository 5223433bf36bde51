package stack

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
)

// Follow points the native stack, when this checkout's is up, at a run's
// target: Prometheus discovers the services of the API the run uses
// (IM_API_URL) and scrapes the target's metrics addresses, and
// process-exporter groups this machine's processes as the profiles (with
// their local overrides) say. What changed is applied at once (Prometheus
// reloads its config, process-exporter restarts); each note says what was
// done, or what to run where the stack answering is not this checkout's.
func Follow(target string) (notes []string, err error) {
	a := Addrs()
	svcs, err := services(false, false)
	if err != nil {
		return nil, err
	}
	byName := map[string]service{}
	for _, s := range svcs {
		byName[s.name] = s
	}
	prom, pe := byName["prometheus"], byName["process-exporter"]
	promPid, ours := running(prom)
	if !ours {
		if Healthy("http://" + a.Prometheus + "/-/ready") {
			notes = append(notes, fmt.Sprintf("Prometheus at %s is not this checkout's stack: it scrapes what its own config says; "+
				"for %s's own metrics run `make up TARGET=%s` here with the run's variables", a.Prometheus, target, target))
		}
		return notes, nil
	}
	before, _ := os.ReadFile(prometheusConfig)
	if err := renderPrometheus(a); err != nil {
		return notes, err
	}
	if err := renderScrapeTargets(target); err != nil {
		return notes, err
	}
	if after, _ := os.ReadFile(prometheusConfig); !bytes.Equal(before, after) {
		if err := syscall.Kill(promPid, syscall.SIGHUP); err != nil {
			return notes, fmt.Errorf("reloading Prometheus (pid %d): %w", promPid, err)
		}
		notes = append(notes, fmt.Sprintf("Prometheus reloaded its config: it discovers OpenIM services at http://%s/prometheus_discovery/", a.discovery))
	}
	if _, ok := running(pe); ok {
		changed, err := renderProcessExporter()
		if err != nil {
			return notes, err
		}
		if changed {
			stop(pe)
			if err := start(pe); err != nil {
				return notes, fmt.Errorf("restarting process-exporter with the profiles' groups: %w", err)
			}
			notes = append(notes, "process-exporter restarted with the profiles' process groups (a local override changed)")
		}
	}
	return notes, nil
}
