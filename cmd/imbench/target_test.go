package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func toolsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("IMBENCH_TOOLS")
	if dir == "" {
		dir, _ = filepath.Abs("../../.tools/bin")
	}
	for _, b := range []string{"imbench", "imbench-target"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			t.Fatalf("%s not built in %s: run `make test` (it builds the tools first)", b, dir)
		}
	}
	return dir
}

// handedOut are the ports freePort gave this test process: the kernel may
// offer a closed one again, and two listeners of one target must differ.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

func freePort(t *testing.T) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		handedOut.Lock()
		again := handedOut.ports[port]
		handedOut.ports[port] = true
		handedOut.Unlock()
		if !again {
			return port
		}
	}
	t.Fatal("no port that was not handed out before in 100 tries")
	return 0
}

type target struct {
	api, ws, metrics string
	wkAPI, wkTCP     string // WuKongIM's API and TCP gateway URLs
	wkWS             string
	wfAdmin, wfMQTT  string // Wildfire's admin API and MQTT port
	secret           string
}

// startTarget runs the reference target binary on free loopback ports.
func startTarget(t *testing.T, flags ...string) target {
	t.Helper()
	tg, args := targetArgs(t, flags...)
	launchTarget(t, tg, args)
	return tg
}

// targetArgs picks the free ports of a target and its command line.
func targetArgs(t *testing.T, flags ...string) (target, []string) {
	t.Helper()
	tg := target{secret: "e2e-secret-" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	api, ws, met := freePort(t), freePort(t), freePort(t)
	tg.api = fmt.Sprintf("http://127.0.0.1:%d", api)
	tg.ws = fmt.Sprintf("ws://127.0.0.1:%d", ws)
	tg.metrics = fmt.Sprintf("http://127.0.0.1:%d/metrics", met)
	wkAPI, wkTCP, wkWS := freePort(t), freePort(t), freePort(t)
	tg.wkAPI, tg.wkTCP, tg.wkWS = fmt.Sprintf("http://127.0.0.1:%d", wkAPI), fmt.Sprintf("tcp://127.0.0.1:%d", wkTCP), fmt.Sprintf("ws://127.0.0.1:%d", wkWS)
	wfAdmin, wfMQTT := freePort(t), freePort(t)
	tg.wfAdmin, tg.wfMQTT = fmt.Sprintf("http://127.0.0.1:%d", wfAdmin), fmt.Sprintf("tcp://127.0.0.1:%d", wfMQTT)
	args := append([]string{"-api", fmt.Sprintf("127.0.0.1:%d", api), "-ws", fmt.Sprintf("127.0.0.1:%d", ws),
		"-metrics", fmt.Sprintf("127.0.0.1:%d", met), "-fault-seed", "42",
		"-wukongim-api", fmt.Sprintf("127.0.0.1:%d", wkAPI), "-wukongim-tcp", fmt.Sprintf("127.0.0.1:%d", wkTCP),
		"-wukongim-ws", fmt.Sprintf("127.0.0.1:%d", wkWS),
		"-wildfire-admin", fmt.Sprintf("127.0.0.1:%d", wfAdmin), "-wildfire-mqtt", fmt.Sprintf("127.0.0.1:%d", wfMQTT)}, flags...)
	return tg, args
}

// launchTarget starts the target and waits for its API; the process is
// killed at the end of the test.
func launchTarget(t *testing.T, tg target, args []string) *exec.Cmd {
	t.Helper()
	return launchTargetUnder(t, tg, args, "")
}

// launchTargetUnder is launchTarget with a shell's lines run before the
// target replaces the shell ("ulimit -n 300; "), its PID the target's.
func launchTargetUnder(t *testing.T, tg target, args []string, shell string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(filepath.Join(toolsDir(t), "imbench-target"), args...)
	if shell != "" {
		cmd = exec.Command("sh", append([]string{"-c", shell + `exec "$0" "$@"`, cmd.Path}, args...)...)
	}
	cmd.Env = append(os.Environ(), "IMBENCH_TARGET_SECRET="+tg.secret)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("target log:\n%s", log.String())
		}
	})
	for i := 0; i < 100; i++ {
		if resp, err := http.Get(tg.api + "/healthz"); err == nil {
			resp.Body.Close()
			return cmd
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("target did not start: %s", log.String())
	return cmd
}

func (tg target) env() []string {
	return []string{"IM_API_URL=" + tg.api, "IM_WS_URL=" + tg.ws, "IM_SECRET=" + tg.secret,
		"IM_WUKONGIM_API_URL=" + tg.wkAPI, "IM_WUKONGIM_TCP_URL=" + tg.wkTCP, "IM_WUKONGIM_WS_URL=" + tg.wkWS,
		"IM_WILDFIRE_ADMIN_URL=" + tg.wfAdmin, "IM_WILDFIRE_MQTT_URL=" + tg.wfMQTT,
		"IM_STORM_URL=" + strings.TrimSuffix(tg.metrics, "/metrics") + "/fault/storm"}
}

// counter sums a metric family from the target's /metrics.
func (tg target) counter(t *testing.T, name string) int64 {
	t.Helper()
	resp, err := http.Get(tg.metrics)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		f := strings.Fields(line)
		v, _ := strconv.ParseFloat(f[len(f)-1], 64)
		sum += v
	}
	return int64(sum)
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
