// Package stack supervises the stack a run reports into: natively, the
// processes `imbench up` starts on 127.0.0.1 (VictoriaLogs, the reference
// target, node_exporter, process-exporter, Prometheus, and for a Wildfire
// target its exporter), with their pid files and logs under .run; with a
// Docker engine, compose/docker-compose.yml. Paths are relative to the
// project root, where imbench runs.
package stack

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ToolsBin is where the Makefile builds the tools, relative to the
// project root.
const ToolsBin = ".tools/bin"

// RunDir holds the native stack's state: this checkout's .run, or the
// .run of another checkout whose stack answers (UseRunningStack).
var RunDir = ".run"

// VictoriaLogs' endpoints: Loki's push protocol in, LogsQL and its web UI out.
const (
	LogPushPath  = "/insert/loki/api/v1/push"
	LogQueryPath = "/select/logsql/query"
	LogUIPath    = "/select/vmui/"
)

// Up starts the stack for target (a profile under targets/; reference
// starts the reference target too) and waits until each part is healthy:
// compose when a Docker engine answers, else the native services. What is
// up already is left running.
func Up(target string) error {
	withTarget := target == "reference"
	if DockerAnswers() {
		return composeUp(target)
	}
	svcs, err := services(true, withTarget)
	if err != nil {
		return err
	}
	svcs = append(svcs, wildfireServices(target)...)
	reg, err := newRegistration(0, target)
	if err != nil {
		return err
	}
	if err := reg.write(); err != nil {
		return err
	}
	if _, _, err := renderScrapes(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(RunDir, "logs"), 0o755); err != nil {
		return err
	}
	var started []service
	for _, s := range svcs {
		if pid, ok := running(s); ok && Healthy(s.health) {
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

// Down stops what Up started.
func Down() error {
	if DockerAnswers() {
		return composeDown()
	}
	svcs, _ := services(false, true)
	svcs = append(svcs, wildfireServices("")...)
	registration{Target: "the stack's own"}.remove()
	for i := len(svcs) - 1; i >= 0; i-- {
		if stop(svcs[i]) {
			fmt.Printf("%-18s stopped\n", svcs[i].name)
		}
	}
	return nil
}

// Status prints each service, its health and its URL.
func Status() error {
	if DockerAnswers() {
		return composeStatus()
	}
	svcs, _ := services(false, true)
	svcs = append(svcs, wildfireServices("")...)
	for _, s := range svcs {
		state := "down"
		if pid, ok := running(s); ok {
			state = fmt.Sprintf("running (pid %d), unhealthy", pid)
			if Healthy(s.health) {
				state = fmt.Sprintf("healthy (pid %d)", pid)
			}
		}
		fmt.Printf("%-18s %-28s %s\n", s.name, state, s.url)
	}
	return nil
}

func start(s service) error {
	path, err := exec.LookPath(s.bin)
	if err != nil {
		return fmt.Errorf("%s is not installed (make up installs and builds it)", s.bin)
	}
	if Healthy(s.health) {
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
	if s.cpus != "" {
		// Pinned (TARGET_CPUS): taskset sets the affinity and becomes the
		// service, its PID the service's.
		cmd = exec.Command("taskset", append([]string{"-c", s.cpus, path}, s.args...)...)
	}
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
			if Healthy(s.health) {
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

// Healthy reports whether a GET of url answers 200 within 2 s.
func Healthy(url string) bool {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func logTail(path string) string {
	raw, err := os.ReadFile(path)
	if err != nil || len(raw) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	return "; last log line: " + lines[len(lines)-1]
}
