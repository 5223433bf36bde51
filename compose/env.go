// Package compose holds imbench's Docker stack (docker-compose.yml, its
// Dockerfile) and what the stack needs from the environment.
//
// Docker Compose interpolates every service of the file before it applies
// profiles (docker/compose#11977), and for run, down and ps as for up, so a
// `${VAR:?}` in one service would stop every other profile and command. The
// secrets are plain `${VAR}` in the file, none with a default; `imbench up`
// checks the profile's with Check before it starts anything, and Grafana,
// which every profile runs, also refuses to start without its password.
package compose

import (
	"fmt"
	"strings"
)

// Always is what every profile needs: the services without a profile use it.
var Always = []string{"GRAFANA_ADMIN_PASSWORD"}

// Needs is, per compose profile, the variables its services need besides
// Always. compose_test.go holds it to docker-compose.yml.
var Needs = map[string][]string{
	"reference": {"IMBENCH_TARGET_SECRET"},
	"openim":    {"OPENIM_SECRET", "MONGO_PASSWORD", "REDIS_PASSWORD", "MINIO_SECRET_KEY"},
	"wukongim":  {"WUKONGIM_MANAGER_TOKEN"},
	// WILDFIRE_RELEASE is the release package's path, not a secret, but
	// the server cannot start without it.
	"wildfire": {"WILDFIRE_ADMIN_SECRET", "WILDFIRE_RELEASE"},
	"runner":   nil,
}

// Generated are the variables `imbench up` makes itself when unset.
var Generated = map[string]bool{"IMBENCH_TARGET_SECRET": true}

// Vars is every variable profile needs, Always first.
func Vars(profile string) []string {
	return append(append([]string(nil), Always...), Needs[profile]...)
}

// Secrets is every variable of every profile, each once.
func Secrets() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range []string{"reference", "openim", "wukongim", "wildfire", "runner"} {
		for _, v := range Vars(p) {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// Missing names the variables profile needs that getenv finds empty,
// leaving out those `imbench up` generates.
func Missing(profile string, getenv func(string) string) []string {
	var out []string
	for _, v := range Vars(profile) {
		if !Generated[v] && getenv(v) == "" {
			out = append(out, v)
		}
	}
	return out
}

// Check is Missing as one line, or nil when nothing is missing.
func Check(profile string, getenv func(string) string) error {
	if _, ok := Needs[profile]; !ok {
		return fmt.Errorf("compose has no profile %q", profile)
	}
	missing := Missing(profile, getenv)
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("compose profile %s needs %s set in the environment (no defaults)", profile, strings.Join(missing, ", "))
}
