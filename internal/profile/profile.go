// Package profile reads targets/<name>/profile.yaml: where a kind of target
// listens, which protocol it speaks, how to find its metrics and processes.
package profile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Process is a process-exporter group of a target's parts.
type Process struct {
	Group   string   `yaml:"group"`
	Comm    []string `yaml:"comm,omitempty"`
	Cmdline []string `yaml:"cmdline,omitempty"`
	// Note says what the group counts where it is not the part its name
	// says (a profile.local.yaml's "FerretDB and PostgreSQL stand in for
	// MongoDB"); the report shows it beside the group's row.
	Note string `yaml:"note,omitempty"`
	// Ports are ports its processes listen on, on this machine (a
	// database's, a broker's): the processes holding them and their
	// process trees are the group, whatever their names, and another
	// program of the name on the host is not counted in the run's rows.
	Ports []int `yaml:"ports,omitempty"`
}

// GroupPorts are the ports every group names.
func GroupPorts(groups []Process) []int {
	var out []int
	for _, g := range groups {
		out = append(out, g.Ports...)
	}
	return out
}

// MaxComm is the longest process name Linux keeps in /proc/<pid>/comm
// (TASK_COMM_LEN 16, with its NUL): process-exporter's comm matches it.
const MaxComm = 15

// LocalFile is a target's local override beside its profile.yaml: its
// processes replace the profile's groups of the same name, or add groups,
// for a deployment whose parts run as other programs. It is not shipped
// (.gitignore).
const LocalFile = "profile.local.yaml"

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
	// FixedMetricsEnv names the variable giving the metrics addresses of
	// the services its discovery lists nothing for ("api=host:port,…"):
	// OpenIM's api and msgtransfer on fixed ports register none.
	FixedMetricsEnv string    `yaml:"fixed_metrics_env"`
	Processes       []Process `yaml:"processes"`
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

// Load reads every profile under dir (the targets/ folder), each with its
// local override (LocalFile) applied.
func Load(dir string) (map[string]Profile, error) { return load(dir, true) }

// LoadShipped reads the profiles as shipped, without local overrides: what
// `make generate` renders exporters/process-exporter.yml from.
func LoadShipped(dir string) (map[string]Profile, error) { return load(dir, false) }

func load(dir string, local bool) (map[string]Profile, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "profile.yaml"))
	if err != nil {
		return nil, err
	}
	out := map[string]Profile{}
	for _, f := range files {
		var p Profile
		if err := decodeFile(f, &p); err != nil {
			return nil, err
		}
		if p.Name != filepath.Base(filepath.Dir(f)) {
			return nil, fmt.Errorf("%s: name %q must match its folder", f, p.Name)
		}
		if local {
			if err := p.applyLocal(filepath.Join(filepath.Dir(f), LocalFile)); err != nil {
				return nil, err
			}
		}
		if err := p.checkProcesses(f); err != nil {
			return nil, err
		}
		out[p.Name] = p
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no target profiles under %s (run imbench from the repository's folder)", dir)
	}
	return out, nil
}

func decodeFile(f string, v any) error {
	raw, err := os.ReadFile(f)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %w", f, err)
	}
	return nil
}

// applyLocal merges a local override's processes, when there is one.
func (p *Profile) applyLocal(f string) error {
	if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var local struct {
		Processes []Process `yaml:"processes"`
	}
	if err := decodeFile(f, &local); err != nil {
		return err
	}
	for _, lp := range local.Processes {
		i := slices.IndexFunc(p.Processes, func(x Process) bool { return x.Group == lp.Group })
		if i < 0 {
			p.Processes = append(p.Processes, lp)
		} else {
			p.Processes[i] = lp
		}
	}
	return nil
}

// checkProcesses refuses a comm Linux never reports: process-exporter
// would match no process, and the part would go missing from the table;
// and a port no process can listen on.
func (p Profile) checkProcesses(f string) error {
	for _, pr := range p.Processes {
		for _, port := range pr.Ports {
			if port < 1 || port > 65535 {
				return fmt.Errorf("%s: process group %q: port %d is not a TCP port (1..65535)", f, pr.Group, port)
			}
		}
		for _, c := range pr.Comm {
			if len(c) > MaxComm {
				return fmt.Errorf("%s: process group %q: comm %q is %d characters; Linux keeps %d in /proc/<pid>/comm (%q)",
					f, pr.Group, c, len(c), MaxComm, c[:MaxComm])
			}
		}
	}
	return nil
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
