package stack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
)

// service is a native process `up` starts and `down` stops.
type service struct {
	name   string
	bin    string
	args   []string
	env    []string
	health string       // GET answering 200 when ready
	url    string       // what status shows
	render func() error // writes the service's config before it starts
	cpus   string       // pinned to these CPUs (taskset -c), where set
}

func (s service) pidFile() string { return filepath.Join(RunDir, s.name+".pid") }
func (s service) logFile() string { return filepath.Join(RunDir, "logs", s.name+".log") }

// Addresses are the native stack's listen addresses: 127.0.0.1 and the usual
// ports, each overridable by environment (tests use free ports).
type Addresses struct {
	api, ws      string // reference target
	Metrics      string // the reference target's /metrics, beside its /fault endpoints
	Prometheus   string
	node         string
	process      string
	VictoriaLogs string // the log store
	discovery    string // host:port of the OpenIM API Prometheus asks for its services
}

// Addrs are the native stack's addresses, as the environment sets them.
func Addrs() Addresses {
	a := Addresses{
		api:          envOr("IMBENCH_TARGET_API", "127.0.0.1:10002"),
		ws:           envOr("IMBENCH_TARGET_WS", "127.0.0.1:10001"),
		Metrics:      envOr("IMBENCH_TARGET_METRICS", "127.0.0.1:12002"),
		Prometheus:   envOr("IMBENCH_PROMETHEUS", "127.0.0.1:9090"),
		node:         envOr("IMBENCH_NODE_EXPORTER", "127.0.0.1:9100"),
		process:      envOr("IMBENCH_PROCESS_EXPORTER", "127.0.0.1:9256"),
		VictoriaLogs: envOr("IMBENCH_VICTORIALOGS", "127.0.0.1:9428"),
	}
	a.discovery = a.api
	if u, err := url.Parse(os.Getenv("IM_API_URL")); err == nil && u.Host != "" {
		a.discovery = u.Host
	}
	return a
}

// services lists the native stack in start order. With withTarget false
// (TARGET=openim: a real server is the target) the reference target is left
// out. forStart creates the target's secret when there is none yet.
func services(forStart, withTarget bool) ([]service, error) {
	a := Addrs()
	// The log store first, so the others' first log lines reach it.
	out := []service{
		{
			name: "victorialogs",
			bin:  filepath.Join(ToolsBin, "victoria-logs"),
			args: []string{"-httpListenAddr=" + a.VictoriaLogs,
				"-storageDataPath=" + filepath.Join(RunDir, "victorialogs"),
				"-retentionPeriod=30d"},
			health: "http://" + a.VictoriaLogs + "/health",
			url: "http://" + a.VictoriaLogs + "  (push " + LogPushPath + ", query " + LogQueryPath +
				", UI http://" + a.VictoriaLogs + LogUIPath + ")",
		},
	}
	if withTarget {
		secret, err := TargetSecret(forStart)
		if err != nil && forStart {
			return nil, err
		}
		out = append(out, service{
			name:   "reference-target",
			bin:    filepath.Join(ToolsBin, "imbench-target"),
			args:   []string{"-api", a.api, "-ws", a.ws, "-metrics", a.Metrics, "-log-format", "json"},
			env:    []string{"IMBENCH_TARGET_SECRET=" + secret, "IMBENCH_TARGET_LOG_PUSH=http://" + a.VictoriaLogs + LogPushPath},
			health: "http://" + a.api + "/healthz",
			cpus:   os.Getenv("IMBENCH_TARGET_CPUS"),
			url: fmt.Sprintf("api http://%s  ws ws://%s  metrics http://%s/metrics  wukongim api http://%s tcp tcp://%s ws ws://%s  wildfire admin http://%s mqtt tcp://%s",
				a.api, a.ws, a.Metrics, envOr("IMBENCH_TARGET_WUKONGIM_API", "127.0.0.1:15001"),
				envOr("IMBENCH_TARGET_WUKONGIM_TCP", "127.0.0.1:15100"), envOr("IMBENCH_TARGET_WUKONGIM_WS", "127.0.0.1:15200"),
				envOr("IMBENCH_TARGET_WILDFIRE_ADMIN", "127.0.0.1:18180"), envOr("IMBENCH_TARGET_WILDFIRE_MQTT", "127.0.0.1:11883")),
		})
	}
	out = append(out,
		service{
			name:   "node-exporter",
			bin:    "prometheus-node-exporter",
			args:   []string{"--web.listen-address=" + a.node},
			health: "http://" + a.node + "/metrics",
			url:    "http://" + a.node + "/metrics",
		},
		service{
			name:   "process-exporter",
			bin:    "prometheus-process-exporter",
			args:   []string{"-web.listen-address=" + a.process, "-config.path=" + processExporterConfig(), "-threads=false"},
			health: "http://" + a.process + "/metrics",
			url:    "http://" + a.process + "/metrics",
			render: func() error { _, err := renderProcessExporter(); return err },
		},
		service{
			name: "prometheus",
			bin:  filepath.Join(ToolsBin, "prometheus"),
			// Absolute, so that another checkout finds this one's state
			// from Prometheus' flags (UseRunningStack).
			args: []string{"--config.file=" + absPath(prometheusConfig()),
				"--storage.tsdb.path=" + absPath(filepath.Join(RunDir, "prometheus", "data")),
				"--web.listen-address=" + a.Prometheus, "--web.enable-remote-write-receiver",
				"--storage.tsdb.retention.time=30d"},
			health: "http://" + a.Prometheus + "/-/ready",
			url:    "http://" + a.Prometheus + "  (API and remote write /api/v1/write; no web UI in this build)",
			render: func() error { _, _, err := renderScrapes(); return err },
		})
	return out, nil
}

// renderPrometheus writes .run/prometheus/prometheus.yml: prometheus/prometheus.yml
// with the configured addresses and absolute rule paths.
func renderPrometheus(a Addresses) error {
	raw, err := os.ReadFile(filepath.Join("prometheus", "prometheus.yml"))
	if err != nil {
		return err
	}
	rules, err := filepath.Abs(filepath.Join("prometheus", "rules"))
	if err != nil {
		return err
	}
	s := strings.NewReplacer(
		"127.0.0.1:9100", a.node,
		"127.0.0.1:9256", a.process,
		"127.0.0.1:12002", a.Metrics,
		"127.0.0.1:10002", a.discovery,
		"- rules/", "- "+rules+"/",
	).Replace(string(raw))
	_, err = writeIfChanged(prometheusConfig(), []byte(s))
	return err
}

// prometheusConfig is Prometheus' config as the native stack renders it.
func prometheusConfig() string { return filepath.Join(RunDir, "prometheus", "prometheus.yml") }

// processExporterConfig is process-exporter's config as the native stack
// runs it: exporters/process-exporter.yml with this machine's local
// profile overrides (profile.LocalFile) applied.
func processExporterConfig() string { return filepath.Join(RunDir, "process-exporter.yml") }

// renderProcessExporter writes processExporterConfig and reports whether
// it changed.
func renderProcessExporter() (bool, error) {
	profiles, err := profile.Load("targets")
	if err != nil {
		return false, err
	}
	raw, err := profile.ProcessExporterConfig(profiles)
	if err != nil {
		return false, err
	}
	return writeIfChanged(processExporterConfig(), raw)
}

// writeIfChanged writes raw to path unless it holds raw already.
func writeIfChanged(path string, raw []byte) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, raw) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return true, os.WriteFile(path, raw, 0o644)
}

// ScrapesProfile reports whether a profile's scrape job reads a file
// renderScrapeTargets writes: its metrics addresses where its server has
// no discovery of its own, or the fixed ones its discovery leaves out.
func ScrapesProfile(name string, p profile.Profile) bool {
	return name != "reference" && (p.Discovery == "" && len(p.Metrics) > 0 || p.FixedMetricsEnv != "")
}

// renderScrapeTargets writes .run/prometheus/<profile>-targets.json, the
// file_sd targets of each profile ScrapesProfile names: the union of the
// groups its live registrations ask ([] where none does). changed: a file
// changed (file_sd reads them again by itself; the return is for a
// caller's reload).
func renderScrapeTargets(regs []registration) (changed bool, err error) {
	profiles, err := profile.Load("targets")
	if err != nil {
		return false, err
	}
	dir := filepath.Join(RunDir, "prometheus")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	for name, p := range profiles {
		if !ScrapesProfile(name, p) {
			continue
		}
		groups := []map[string]any{}
		seen := map[string]bool{}
		for _, r := range regs {
			if r.Target != name {
				continue
			}
			for _, g := range r.Groups {
				key, _ := json.Marshal(g)
				if !seen[string(key)] {
					seen[string(key)] = true
					groups = append(groups, g)
				}
			}
		}
		raw, _ := json.Marshal(groups)
		c, err := writeIfChanged(filepath.Join(dir, name+"-targets.json"), raw)
		if err != nil {
			return changed, err
		}
		changed = changed || c
	}
	return changed, nil
}

// Fixed is one metrics address a profile's discovery leaves out.
type Fixed struct {
	Service, Addr, Job string
}

// FixedMetrics reads a profile's FixedMetricsEnv: service=host:port pairs,
// comma-separated, each service one its discovery names; the job is the
// one discovery would give it (openim-api, openim-msgtransfer, …).
func FixedMetrics(p profile.Profile) ([]Fixed, error) {
	raw := strings.TrimSpace(os.Getenv(p.FixedMetricsEnv))
	if raw == "" {
		return nil, nil
	}
	var out []Fixed
	for _, pair := range strings.Split(raw, ",") {
		svc, addr, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if _, _, err := net.SplitHostPort(addr); !ok || err != nil || !slices.Contains(p.DiscoveryServices, svc) {
			return nil, badinput.Errorf("%s: %q is not service=host:port with a service of %s (%s)", p.FixedMetricsEnv, pair,
				p.Name, strings.Join(p.DiscoveryServices, ", "))
		}
		out = append(out, Fixed{Service: svc, Addr: addr, Job: p.Name + "-" + strings.ReplaceAll(svc, "_", "")})
	}
	return out, nil
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}
