package profile

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"
)

// GeneratorGroup is the load generator's process group: every process named
// imbench on the host, whichever run it belongs to.
const GeneratorGroup = "imbench"

// Groups every stack has besides a target's parts: the load generator (a
// saturated generator invalidates a benchmark, so it must be visible) and
// the observability services themselves.
var stackGroups = []Process{
	{Group: GeneratorGroup, Comm: []string{"imbench"}},
	{Group: "observability", Comm: []string{"prometheus", "victoria-logs", "prometheus-node", "prometheus-proc", "node_exporter", "process-exporte"}},
}

// StackGroupsList is the stack's groups with their selectors.
func StackGroupsList() []Process { return append([]Process(nil), stackGroups...) }

// StackGroups names the groups that are not part of any target.
func StackGroups() []string {
	var out []string
	for _, g := range stackGroups {
		out = append(out, g.Group)
	}
	return out
}

type peGroup struct {
	Name    string   `yaml:"name"`
	Comm    []string `yaml:"comm,omitempty,flow"`
	Cmdline []string `yaml:"cmdline,omitempty,flow"`
}

// ProcessExporterConfig renders exporters/process-exporter.yml: the stack's
// groups first (process-exporter takes the first group that matches), then
// every profile's, by profile name. A group may appear in two profiles only
// with the same selectors.
func ProcessExporterConfig(profiles map[string]Profile) ([]byte, error) {
	seen := map[string]Process{}
	var groups []peGroup
	add := func(p Process, from string) error {
		if prev, ok := seen[p.Group]; ok {
			if fmt.Sprint(prev) != fmt.Sprint(p) {
				return fmt.Errorf("process group %q differs between profiles (%s)", p.Group, from)
			}
			return nil
		}
		if len(p.Comm) == 0 && len(p.Cmdline) == 0 {
			return fmt.Errorf("process group %q in %s selects nothing", p.Group, from)
		}
		seen[p.Group] = p
		groups = append(groups, peGroup{Name: p.Group, Comm: p.Comm, Cmdline: p.Cmdline})
		return nil
	}
	for _, g := range stackGroups {
		if err := add(g, "imbench"); err != nil {
			return nil, err
		}
	}
	for _, n := range Names(profiles) {
		for _, p := range profiles[n].Processes {
			if err := add(p, n); err != nil {
				return nil, err
			}
		}
	}
	var b bytes.Buffer
	b.WriteString("# Generated from targets/*/profile.yaml by `make generate`; do not edit.\n")
	b.WriteString("# process-exporter groups: each is a component in imbench:component_* (prometheus/rules).\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(map[string][]peGroup{"process_names": groups}); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}
