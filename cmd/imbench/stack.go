package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/imbench/imbench/internal/profile"
)

// Paths the Makefile and the CLI agree on, relative to the project root.
const (
	toolsBin = ".tools/bin"
	runDir   = ".run"
)

// VictoriaLogs' endpoints: Loki's push protocol in, LogsQL and its web UI out.
const (
	logPushPath  = "/insert/loki/api/v1/push"
	logQueryPath = "/select/logsql/query"
	logUIPath    = "/select/vmui/"
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
}

func (s service) pidFile() string { return filepath.Join(runDir, s.name+".pid") }
func (s service) logFile() string { return filepath.Join(runDir, "logs", s.name+".log") }

// addrs are the native stack's listen addresses: 127.0.0.1 and the usual
// ports, each overridable by environment (tests use free ports).
type addrs struct {
	api, ws, metrics          string // reference target
	prometheus, node, process string
	victorialogs              string // the log store
	discovery                 string // host:port of the OpenIM API Prometheus asks for its services
}

func stackAddrs() addrs {
	a := addrs{
		api:          envOr("IMBENCH_TARGET_API", "127.0.0.1:10002"),
		ws:           envOr("IMBENCH_TARGET_WS", "127.0.0.1:10001"),
		metrics:      envOr("IMBENCH_TARGET_METRICS", "127.0.0.1:12002"),
		prometheus:   envOr("IMBENCH_PROMETHEUS", "127.0.0.1:9090"),
		node:         envOr("IMBENCH_NODE_EXPORTER", "127.0.0.1:9100"),
		process:      envOr("IMBENCH_PROCESS_EXPORTER", "127.0.0.1:9256"),
		victorialogs: envOr("IMBENCH_VICTORIALOGS", "127.0.0.1:9428"),
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
	a := stackAddrs()
	// The log store first, so the others' first log lines reach it.
	out := []service{
		{
			name: "victorialogs",
			bin:  filepath.Join(toolsBin, "victoria-logs"),
			args: []string{"-httpListenAddr=" + a.victorialogs,
				"-storageDataPath=" + filepath.Join(runDir, "victorialogs"),
				"-retentionPeriod=30d"},
			health: "http://" + a.victorialogs + "/health",
			url: "http://" + a.victorialogs + "  (push " + logPushPath + ", query " + logQueryPath +
				", UI http://" + a.victorialogs + logUIPath + ")",
		},
	}
	if withTarget {
		secret, err := targetSecret(forStart)
		if err != nil && forStart {
			return nil, err
		}
		out = append(out, service{
			name:   "reference-target",
			bin:    filepath.Join(toolsBin, "imbench-target"),
			args:   []string{"-api", a.api, "-ws", a.ws, "-metrics", a.metrics, "-log-format", "json"},
			env:    []string{"IMBENCH_TARGET_SECRET=" + secret, "IMBENCH_TARGET_LOG_PUSH=http://" + a.victorialogs + logPushPath},
			health: "http://" + a.api + "/healthz",
			url: fmt.Sprintf("api http://%s  ws ws://%s  metrics http://%s/metrics  wukongim api http://%s tcp tcp://%s ws ws://%s  wildfire admin http://%s mqtt tcp://%s",
				a.api, a.ws, a.metrics, envOr("IMBENCH_TARGET_WUKONGIM_API", "127.0.0.1:15001"),
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
			args:   []string{"-web.listen-address=" + a.process, "-config.path=exporters/process-exporter.yml", "-threads=false"},
			health: "http://" + a.process + "/metrics",
			url:    "http://" + a.process + "/metrics",
		},
		service{
			name: "prometheus",
			bin:  filepath.Join(toolsBin, "prometheus"),
			args: []string{"--config.file=" + filepath.Join(runDir, "prometheus", "prometheus.yml"),
				"--storage.tsdb.path=" + filepath.Join(runDir, "prometheus", "data"),
				"--web.listen-address=" + a.prometheus, "--web.enable-remote-write-receiver",
				"--storage.tsdb.retention.time=30d"},
			health: "http://" + a.prometheus + "/-/ready",
			url:    "http://" + a.prometheus + "  (API and remote write /api/v1/write; no web UI in this build)",
			render: func() error { return renderPrometheus(a) },
		})
	return out, nil
}

// renderPrometheus writes .run/prometheus/prometheus.yml: prometheus/prometheus.yml
// with the configured addresses and absolute rule paths.
func renderPrometheus(a addrs) error {
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
		"127.0.0.1:12002", a.metrics,
		"127.0.0.1:10002", a.discovery,
		"- rules/", "- "+rules+"/",
	).Replace(string(raw))
	dir := filepath.Join(runDir, "prometheus")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(s), 0o644)
}

// renderScrapeTargets writes .run/prometheus/<profile>-targets.json, the
// file a profile's scrape job reads (file_sd) when its server has no
// discovery of its own: the target's metrics addresses for the target
// brought up, nothing for the others, so that no absent server is down.
// Prometheus rereads the files by itself.
func renderScrapeTargets(target string) error {
	profiles, err := profile.Load("targets")
	if err != nil {
		return err
	}
	dir := filepath.Join(runDir, "prometheus")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, p := range profiles {
		if name == "reference" || p.Discovery != "" || len(p.Metrics) == 0 {
			continue
		}
		groups := []map[string]any{}
		if name == target {
			var hosts []string
			for _, m := range p.Metrics {
				if u, err := url.Parse(m); err == nil && u.Host != "" {
					hosts = append(hosts, u.Host)
				}
			}
			groups = append(groups, map[string]any{"targets": hosts})
		}
		raw, _ := json.Marshal(groups)
		if err := os.WriteFile(filepath.Join(dir, name+"-targets.json"), raw, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// targetSecret returns the reference target's secret, creating it (create)
// on the first `up`. It lives in .run/target.env, readable by the owner only.
func targetSecret(create bool) (string, error) {
	path := filepath.Join(runDir, "target.env")
	raw, err := os.ReadFile(path)
	if err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if v, ok := strings.CutPrefix(line, "IMBENCH_TARGET_SECRET="); ok && v != "" {
				return strings.TrimSpace(v), nil
			}
		}
	}
	if !create {
		return "", errors.New("the reference target has no secret yet: run make up first")
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	secret := hex.EncodeToString(b)
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		return "", err
	}
	return secret, os.WriteFile(path, []byte("IMBENCH_TARGET_SECRET="+secret+"\n"), 0o600)
}

func stackFlags(name string, args []string) (string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	target := fs.String("target", "reference", "a profile under targets/: reference starts the reference target too; any other is a real server")
	if err := fs.Parse(args); err != nil {
		return "", usageError{err}
	}
	if *target == "" {
		*target = "reference"
	}
	profiles, err := profile.Load("targets")
	if err != nil {
		return "", err
	}
	if _, ok := profiles[*target]; !ok {
		return "", badInput("unknown target %q (known: %s)", *target, strings.Join(profile.Names(profiles), ", "))
	}
	return *target, nil
}

func cmdUp(args []string) error {
	target, err := stackFlags("up", args)
	withTarget := target == "reference"
	if err != nil {
		return err
	}
	if dockerAnswers() {
		return composeUp(target)
	}
	svcs, err := services(true, withTarget)
	if err != nil {
		return err
	}
	svcs = append(svcs, wildfireServices(target)...)
	if err := renderScrapeTargets(target); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(runDir, "logs"), 0o755); err != nil {
		return err
	}
	var started []service
	for _, s := range svcs {
		if pid, ok := running(s); ok && healthy(s.health) {
			fmt.Printf("%-18s already up (pid %d)  %s\n", s.name, pid, s.url)
			continue
		}
		if err := start(s); err != nil {
			// Leave nothing half-started.
			stop(s)
			for i := len(started) - 1; i >= 0; i-- {
				stop(started[i])
			}
			return fmt.Errorf("%s did not start: %v%s", s.name, err, logTail(s.logFile()))
		}
		started = append(started, s)
		pid, _ := running(s)
		fmt.Printf("%-18s up (pid %d)  %s\n", s.name, pid, s.url)
	}
	fmt.Println("stack mode: native (no Docker engine answers); Grafana dashboards need compose/ or your own Grafana")
	return nil
}

func start(s service) error {
	path, err := exec.LookPath(s.bin)
	if err != nil {
		return fmt.Errorf("%s is not installed (make up installs and builds it)", s.bin)
	}
	if healthy(s.health) {
		return fmt.Errorf("something else already answers %s", s.health)
	}
	if s.render != nil {
		if err := s.render(); err != nil {
			return err
		}
	}
	logf, err := os.OpenFile(s.logFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(path, s.args...)
	cmd.Env = append(os.Environ(), s.env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlive make
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := os.WriteFile(s.pidFile(), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("exited: %v", err)
		case <-deadline:
			return errors.New("not healthy within 60 s")
		case <-time.After(100 * time.Millisecond):
			if healthy(s.health) {
				return nil
			}
		}
	}
}

// running reports the pid of a service started by up, if it is alive.
func running(s service) (int, bool) {
	raw, err := os.ReadFile(s.pidFile())
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 0 || syscall.Kill(pid, 0) != nil {
		return 0, false
	}
	// A recycled pid belongs to another program.
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if !strings.Contains(string(cmdline), filepath.Base(s.bin)) {
		return 0, false
	}
	return pid, true
}

func stop(s service) bool {
	pid, ok := running(s)
	os.Remove(s.pidFile())
	if !ok {
		return false
	}
	syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 100; i++ {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	return true
}

func healthy(url string) bool {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func cmdDown(args []string) error {
	if dockerAnswers() {
		return composeDown()
	}
	svcs, _ := services(false, true)
	svcs = append(svcs, wildfireServices("")...)
	for i := len(svcs) - 1; i >= 0; i-- {
		if stop(svcs[i]) {
			fmt.Printf("%-18s stopped\n", svcs[i].name)
		}
	}
	return nil
}

func cmdStatus(args []string) error {
	if dockerAnswers() {
		return composeStatus()
	}
	svcs, _ := services(false, true)
	svcs = append(svcs, wildfireServices("")...)
	for _, s := range svcs {
		state := "down"
		if pid, ok := running(s); ok {
			state = fmt.Sprintf("running (pid %d), unhealthy", pid)
			if healthy(s.health) {
				state = fmt.Sprintf("healthy (pid %d)", pid)
			}
		}
		fmt.Printf("%-18s %-28s %s\n", s.name, state, s.url)
	}
	return nil
}

func logTail(path string) string {
	raw, err := os.ReadFile(path)
	if err != nil || len(raw) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	return "; last log line: " + lines[len(lines)-1]
}
