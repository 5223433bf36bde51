package stack

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"time"
)

// absPath is p made absolute (p itself where that fails).
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// UseRunningStack makes this process use the native stack that answers
// when it is another checkout's (started there by make up): its state
// folder, so that a run from here registers its target's scrapes with that
// stack's Prometheus, reads the reference target's secret it made, and
// `status` shows its services. It returns that checkout's folder; "" when
// this checkout's stack runs, or none answers that says where it lives.
// Only up and down keep to this checkout's own: one checkout never starts
// or stops another's stack.
func UseRunningStack() string {
	svcs, err := services(false, true)
	if err != nil {
		return ""
	}
	for _, s := range svcs {
		if _, ours := running(s); ours && s.name == "prometheus" {
			return ""
		}
	}
	dir := runningStackDir("http://" + Addrs().Prometheus)
	if dir == "" || dir == absPath(RunDir) {
		return ""
	}
	RunDir = dir
	return filepath.Dir(dir)
}

// runningStackDir is the .run folder of the native stack whose Prometheus
// answers at base: its config file's, from Prometheus' own flags (the
// stack starts it with an absolute path); "" where that is not one.
func runningStackDir(base string) string {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(base + "/api/v1/status/flags")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var flags struct {
		Data map[string]string `json:"data"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&flags) != nil {
		return ""
	}
	cfg := flags.Data["config.file"]
	dir := filepath.Dir(filepath.Dir(cfg)) // <checkout>/.run/prometheus/prometheus.yml
	if !filepath.IsAbs(cfg) || filepath.Base(cfg) != "prometheus.yml" || filepath.Base(dir) != ".run" {
		return ""
	}
	return dir
}
