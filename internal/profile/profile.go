// Package profile reads targets/<name>/profile.yaml: where a kind of target
// listens, which protocol it speaks, how to find its metrics and processes.
package profile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Process is a process-exporter group of a target's parts.
type Process struct {
	Group   string   `yaml:"group"`
	Comm    []string `yaml:"comm,omitempty"`
	Cmdline []string `yaml:"cmdline,omitempty"`
}

// Profile describes one kind of target.
type Profile struct {
	Name              string    `yaml:"name"`
	System            string    `yaml:"system"`
	Description       string    `yaml:"description"`
	Protocols         []string  `yaml:"protocols"` // those it speaks, when not only its system's
	Cores             int       `yaml:"cores"`     // of its machine, when known (per-core rates)
	Endpoints         Endpoints `yaml:"endpoints"` // by the protocol's names, e.g. api, ws
	Admin             string    `yaml:"admin"`
	SecretEnv         string    `yaml:"secret_env"`
	Metrics           []string  `yaml:"metrics"`
	Discovery         string    `yaml:"discovery"`
	DiscoveryServices []string  `yaml:"discovery_services"`
	Processes         []Process `yaml:"processes"`
}

// Speaks lists the protocols the target speaks: Protocols, or its system's.
func (p Profile) Speaks() []string {
	if len(p.Protocols) > 0 {
		return p.Protocols
	}
	return []string{p.System}
}

// Endpoints are a target's endpoints by name.
type Endpoints map[string]string

// EnvName is the environment variable that overrides endpoint name:
// IM_API_URL for api, IM_WS_URL for ws.
func EnvName(endpoint string) string { return "IM_" + strings.ToUpper(endpoint) + "_URL" }

// Load reads every profile under dir (the targets/ folder).
func Load(dir string) (map[string]Profile, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "profile.yaml"))
	if err != nil {
		return nil, err
	}
	out := map[string]Profile{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var p Profile
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if p.Name != filepath.Base(filepath.Dir(f)) {
			return nil, fmt.Errorf("%s: name %q must match its folder", f, p.Name)
		}
		out[p.Name] = p
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no target profiles under %s (run imbench from the repository's folder)", dir)
	}
	return out, nil
}

// Names lists profile names, sorted.
func Names(m map[string]Profile) []string {
	var n []string
	for k := range m {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}
