package stack

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
)

// A real Wildfire has no metrics endpoint: the native stack runs imbench's
// wildfire-exporter (exporters/wildfire) beside it, which asks the server's
// admin API on every scrape. It listens where the profile's `metrics` says,
// so renderScrapeTargets lists it for the wildfire job like any profile's
// metrics address, and polls the profile's wildfire_admin endpoint
// (IM_WILDFIRE_ADMIN_URL overrides it, as it does for the run), signing
// with the secret in the profile's secret_env (IM_SECRET).

const wildfireTarget = "wildfire"

// wildfireServices returns the native services a Wildfire target needs
// besides the stack: the exporter, for target "wildfire"; for target ""
// (down and status: whatever up may have started) the same service, so it
// is stopped and shown; nothing for any other target.
func wildfireServices(target string) []service {
	if target != wildfireTarget && target != "" {
		return nil
	}
	admin, listen, secretEnv := "http://127.0.0.1:18080", "127.0.0.1:12080", "IM_SECRET"
	if profiles, err := profile.Load("targets"); err == nil {
		if p, ok := profiles[wildfireTarget]; ok {
			if a := p.Endpoints["wildfire_admin"]; a != "" {
				admin = a
			}
			if len(p.Metrics) > 0 {
				if u, err := url.Parse(p.Metrics[0]); err == nil && u.Host != "" {
					listen = u.Host
				}
			}
			if p.SecretEnv != "" {
				secretEnv = p.SecretEnv
			}
		}
	}
	admin = envOr(profile.EnvName("wildfire_admin"), admin)
	return []service{{
		name: "wildfire-exporter",
		bin:  filepath.Join(ToolsBin, "wildfire-exporter"),
		args: []string{"-listen", listen, "-admin-url", admin, "-secret-env", secretEnv, "-log-format", "json"},
		// The secret reaches it through the environment up inherits;
		// without one it would only exit, so up says so first.
		health: "http://" + listen + "/healthz",
		url:    fmt.Sprintf("http://%s/metrics  (Wildfire admin API %s)", listen, admin),
		render: func() error {
			if os.Getenv(secretEnv) == "" {
				return badinput.Errorf("the Wildfire exporter needs the admin secret (http.admin.secret_key) in %s", secretEnv)
			}
			return nil
		},
	}}
}
