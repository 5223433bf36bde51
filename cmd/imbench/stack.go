package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
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

// Paths the Makefile and the CLI agree on, relative to the project root.
const (
	toolsBin = ".tools/bin"
	runDir   = ".run"
)

// service is a native process `up` starts and `down` stops.
type service struct {
	name   string
	bin    string
	args   []string
	env    []string
	health string // GET answering 200 when ready
	url    string // what status shows
}

func (s service) pidFile() string { return filepath.Join(runDir, s.name+".pid") }
func (s service) logFile() string { return filepath.Join(runDir, "logs", s.name+".log") }

// services lists the native stack in start order; forStart creates the
// target's secret when there is none yet. Addresses follow the target's own
// IMBENCH_TARGET_API/WS/METRICS variables, which it reads as flag defaults.
func services(forStart bool) ([]service, error) {
	secret, err := targetSecret(forStart)
	if err != nil && forStart {
		return nil, err
	}
	api := envOr("IMBENCH_TARGET_API", "127.0.0.1:10002")
	ws := envOr("IMBENCH_TARGET_WS", "127.0.0.1:10001")
	metrics := envOr("IMBENCH_TARGET_METRICS", "127.0.0.1:12002")
	return []service{{
		name:   "reference-target",
		bin:    filepath.Join(toolsBin, "imbench-target"),
		env:    []string{"IMBENCH_TARGET_SECRET=" + secret},
		health: "http://" + api + "/healthz",
		url:    fmt.Sprintf("api http://%s  ws ws://%s  metrics http://%s/metrics", api, ws, metrics),
	}}, nil
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

func cmdUp(args []string) error {
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	svcs, err := services(true)
	if err != nil {
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
			for _, st := range started {
				stop(st)
			}
			stop(s)
			return fmt.Errorf("%s did not start: %v%s", s.name, err, logTail(s.logFile()))
		}
		started = append(started, s)
		pid, _ := running(s)
		fmt.Printf("%-18s up (pid %d)  %s\n", s.name, pid, s.url)
	}
	return nil
}

func start(s service) error {
	if _, err := os.Stat(s.bin); err != nil {
		return fmt.Errorf("%s is not built (make up builds it)", s.bin)
	}
	if healthy(s.health) {
		return fmt.Errorf("something else already answers %s", s.health)
	}
	logf, err := os.OpenFile(s.logFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(s.bin, s.args...)
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
	deadline := time.After(30 * time.Second)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("exited: %v", err)
		case <-deadline:
			return errors.New("not healthy within 30 s")
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
	for i := 0; i < 50; i++ {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	return true
}

func healthy(url string) bool {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func cmdDown(args []string) error {
	svcs, err := services(false)
	if err != nil {
		return err
	}
	for i := len(svcs) - 1; i >= 0; i-- {
		if stop(svcs[i]) {
			fmt.Printf("%-18s stopped\n", svcs[i].name)
		}
	}
	return nil
}

func cmdStatus(args []string) error {
	svcs, err := services(false)
	if err != nil {
		return err
	}
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
