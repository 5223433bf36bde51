// Package comparison runs one workload on several servers in turn (a fixed
// load, then a limit search on each) and puts them side by side
// (report.CompareServers). How a run and a search are started is its
// caller's: a Runner.
package comparison

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
)

// Server is one server of servers.yaml: a target profile, the protocol to
// speak, the settings of its profile (${VAR} taken from the environment:
// secrets stay out of the file), what the report should say differs, and
// the shell commands run before its turn (e.g. one that starts it afresh
// and leaves it alone on its cores) and before each step of its search.
type Server struct {
	Name       string            `yaml:"name"`
	Target     string            `yaml:"target"`
	Protocol   string            `yaml:"protocol"`
	Env        map[string]string `yaml:"env"`
	Notes      []string          `yaml:"notes"`
	Version    string            `yaml:"version"` // the server's, as its operator knows it: no protocol here says it
	Before     string            `yaml:"before"`
	BeforeStep string            `yaml:"before_step"`
	// Warmup runs the workload this long before the measured run (its
	// figures thrown away): a JVM compiles its hot paths in its first
	// minutes, and measured cold it costs about twice what it does warm.
	Warmup string `yaml:"warmup"`
}

type serversFile struct {
	Servers []Server `yaml:"servers"`
}

var serverName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,23}$`)

// LoadServers reads and checks a servers file against the target profiles
// in targetsDir: every mistake is said before any server is contacted.
func LoadServers(path, targetsDir string) ([]Server, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, badinput.Errorf("servers file %s: %v", path, errors.Unwrap(err))
	}
	var f serversFile
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, badinput.Errorf("servers file %s: %v", path, err)
	}
	if len(f.Servers) < 1 || len(f.Servers) > 9 {
		return nil, badinput.Errorf("servers file %s: give 1 to 9 servers, not %d", path, len(f.Servers))
	}
	profiles, err := profile.Load(targetsDir)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := range f.Servers {
		s := &f.Servers[i]
		switch {
		case !serverName.MatchString(s.Name):
			return nil, badinput.Errorf("servers file %s: server %d: name %q must be lower-case letters, digits and '-', at most 24", path, i+1, s.Name)
		case seen[s.Name]:
			return nil, badinput.Errorf("servers file %s: two servers are named %q", path, s.Name)
		case profiles[s.Target].Name == "":
			return nil, badinput.Errorf("servers file %s: %s: unknown target %q (known: %s)", path, s.Name, s.Target, strings.Join(profile.Names(profiles), ", "))
		case s.Warmup != "" && !positiveDuration(s.Warmup):
			return nil, badinput.Errorf("servers file %s: %s: warmup %q is not a positive duration (30s, 2m)", path, s.Name, s.Warmup)
		}
		seen[s.Name] = true
		if err := s.expandEnv(); err != nil {
			return nil, badinput.Errorf("servers file %s: %s: %v", path, s.Name, err)
		}
	}
	return f.Servers, nil
}

// expandEnv takes each setting's ${VAR} from this process's environment.
func (s *Server) expandEnv() error {
	for k, v := range s.Env {
		if !strings.HasPrefix(k, "IM_") {
			return badinput.Errorf("env %s: only imbench's IM_* settings", k)
		}
		var missing []string
		s.Env[k] = os.Expand(v, func(name string) string {
			val, ok := os.LookupEnv(name)
			if !ok {
				missing = append(missing, name)
			}
			return val
		})
		if len(missing) > 0 {
			return badinput.Errorf("env %s takes ${%s}, which is not set", k, missing[0])
		}
	}
	return nil
}

// Environ is the environment of the server's runs: this process's, with
// the server's settings over it, and extra.
func (s Server) Environ(extra ...string) []string {
	env := os.Environ()
	for k, v := range s.Env {
		env = append(env, k+"="+v)
	}
	return append(env, extra...)
}

// Names are the servers' names, in order.
func Names(ss []Server) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return strings.Join(out, ", ")
}

func positiveDuration(s string) bool {
	d, err := time.ParseDuration(s)
	return err == nil && d > 0
}
