package stack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/profile"
)

// registrationsDir holds one file a registration: a run's process's
// (<pid>.json, while it lives) or the stack's own target's (up.json, from
// make up to make down).
func registrationsDir() string { return filepath.Join(RunDir, "prometheus", "runs") }

// registration is what one run (or the stack's own target) asks
// Prometheus to scrape: its profile's file_sd groups, and the OpenIM API
// it discovers services from.
type registration struct {
	PID       int              `json:"pid,omitempty"` // 0: the stack's own, until make down
	Target    string           `json:"target"`
	Discovery string           `json:"discovery,omitempty"` // host:port asked for /prometheus_discovery/
	Groups    []map[string]any `json:"groups,omitempty"`    // file_sd groups of the target's job
	Since     time.Time        `json:"since"`
}

// newRegistration is target's scrapes as this process's environment
// sets them (IM_API_URL, the profile's fixed metrics variable).
func newRegistration(pid int, target string) (registration, error) {
	r := registration{PID: pid, Target: target, Since: time.Now()}
	profiles, err := profile.Load("targets")
	if err != nil {
		return r, err
	}
	p, ok := profiles[target]
	if !ok {
		return r, nil
	}
	if p.Discovery != "" {
		r.Discovery = Addrs().discovery
	}
	if !ScrapesProfile(target, p) {
		return r, nil
	}
	if p.FixedMetricsEnv != "" {
		fixed, err := FixedMetrics(p)
		if err != nil {
			return r, err
		}
		for _, f := range fixed {
			r.Groups = append(r.Groups, map[string]any{"targets": []string{f.Addr}, "labels": map[string]string{"job": f.Job}})
		}
		return r, nil
	}
	var hosts []string
	for _, m := range p.Metrics {
		if u, err := url.Parse(m); err == nil && u.Host != "" {
			hosts = append(hosts, u.Host)
		}
	}
	r.Groups = append(r.Groups, map[string]any{"targets": hosts})
	return r, nil
}

func (r registration) file() string {
	name := "up.json"
	if r.PID != 0 {
		name = strconv.Itoa(r.PID) + ".json"
	}
	return filepath.Join(registrationsDir(), name)
}

func (r registration) write() error {
	if err := os.MkdirAll(registrationsDir(), 0o755); err != nil {
		return err
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return os.WriteFile(r.file(), raw, 0o644)
}

func (r registration) remove() { os.Remove(r.file()) }

func (r registration) fixedText() string {
	var out []string
	for _, g := range r.Groups {
		if t, ok := g["targets"].([]string); ok {
			out = append(out, t...)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// live are the registrations whose process runs (or the stack's own),
// oldest first; those of processes gone are removed.
func live() []registration {
	files, _ := filepath.Glob(filepath.Join(registrationsDir(), "*.json"))
	var out []registration
	for _, f := range files {
		raw, err := os.ReadFile(f)
		var r registration
		if err != nil || json.Unmarshal(raw, &r) != nil {
			continue
		}
		if r.PID != 0 {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", r.PID)); err != nil {
				os.Remove(f)
				continue
			}
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b registration) int { return a.Since.Compare(b.Since) })
	return out
}

// renderScrapes writes what the live registrations ask: each scraped
// profile's targets file (the union of its runs' groups) and Prometheus'
// config with the oldest OpenIM registration's discovery address.
// changed: Prometheus must reload.
func renderScrapes() (changed bool, discovery string, err error) {
	regs := live()
	a := Addrs()
	a.discovery = a.api
	for _, r := range regs {
		if r.Discovery != "" {
			a.discovery = r.Discovery
			break
		}
	}
	before, _ := os.ReadFile(prometheusConfig())
	if err := renderPrometheus(a); err != nil {
		return false, "", err
	}
	after, _ := os.ReadFile(prometheusConfig())
	changed = !bytes.Equal(before, after)
	c, err := renderScrapeTargets(regs)
	return changed || c, a.discovery, err
}
