package bench

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/imbench/imbench/internal/stack"
)

// benchTarget is a reference target started by the bench: one process, or a
// core and gateways.
type benchTarget struct {
	api     string
	ws      []string
	wkAPI   string   // WuKongIM's HTTP API
	wkTCP   []string // WuKongIM's TCP gateways, tcp://host:port
	wkWS    []string
	wfAdmin string // Wildfire's admin API and MQTT port: served beside the core
	wfMQTT  string
	metrics []string // of every process
	core    string   // the process that counts online users
	procs   []*exec.Cmd
	secret  string
}

// handedOut are the addresses localAddr gave: a port closed for a process
// to bind later may be the kernel's next answer too, and a target with many
// gateways asks for dozens.
var handedOut = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

func localAddr() string {
	handedOut.Lock()
	defer handedOut.Unlock()
	for range 1000 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		a := l.Addr().String()
		l.Close()
		if !handedOut.m[a] {
			handedOut.m[a] = true
			return a
		}
	}
	panic("no loopback port left that was not handed out already")
}

// targetLogs is where each target process's output goes (Run sets it
// under the bench's out folder); "" discards it.
var targetLogs string

func (bt *benchTarget) start(args ...string) error {
	cmd := exec.Command(filepath.Join(stack.ToolsBin, "imbench-target"), args...)
	cmd.Env = append(os.Environ(), "IMBENCH_TARGET_SECRET="+bt.secret)
	endsWithBench(cmd)
	if targetLogs != "" {
		if err := os.MkdirAll(targetLogs, 0o755); err != nil {
			return err
		}
		f, err := os.CreateTemp(targetLogs, "target-*.log")
		if err != nil {
			return err
		}
		defer f.Close() // the process keeps its own copy
		cmd.Stdout, cmd.Stderr = f, f
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	bt.procs = append(bt.procs, cmd)
	return nil
}

// endsWithBench has the kernel end cmd's process (SIGTERM) when the bench
// ends without stopping it, killed or interrupted alone: no target or run
// is left holding a quarter of a million sockets. Linux sends it when the
// thread that started the process ends, and Go's threads live as long as
// the process, but for one locked to a goroutine, which the bench has not.
func endsWithBench(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

// pids are the target's processes.
func (bt *benchTarget) pids() []int {
	out := make([]int, 0, len(bt.procs))
	for _, p := range bt.procs {
		out = append(out, p.Process.Pid)
	}
	return out
}

func (bt *benchTarget) stop() {
	for _, p := range bt.procs {
		p.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range bt.procs {
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.Process.Kill()
		}
	}
}

// startTargets starts one all-in-one target (gateways 0) or a core and n
// gateways.
func startTargets(gateways int) (*benchTarget, error) {
	bt := &benchTarget{api: localAddr(), secret: fmt.Sprintf("bench-%d", time.Now().UnixNano())}
	met := localAddr()
	bt.metrics, bt.core = []string{met}, met
	bt.wkAPI, bt.wfAdmin, bt.wfMQTT = localAddr(), localAddr(), localAddr()
	args := []string{"-api", bt.api, "-metrics", met, "-max-conns", "1000000", "-wukongim-api", bt.wkAPI,
		"-wildfire-admin", bt.wfAdmin, "-wildfire-mqtt", bt.wfMQTT}
	link := localAddr()
	if gateways == 0 {
		ws, wkTCP, wkWS := localAddr(), localAddr(), localAddr()
		bt.ws, bt.wkTCP, bt.wkWS = []string{"ws://" + ws}, []string{"tcp://" + wkTCP}, []string{"ws://" + wkWS}
		args = append(args, "-ws", ws, "-wukongim-tcp", wkTCP, "-wukongim-ws", wkWS)
	} else {
		args = append(args, "-role", "core", "-cluster", link)
	}
	if err := bt.start(args...); err != nil {
		return nil, err
	}
	if err := waitHealthy("http://"+bt.api+"/healthz", 30*time.Second); err != nil {
		bt.stop()
		return nil, err
	}
	for range gateways {
		ws, gm, wkTCP, wkWS := localAddr(), localAddr(), localAddr(), localAddr()
		bt.ws = append(bt.ws, "ws://"+ws)
		bt.wkTCP, bt.wkWS = append(bt.wkTCP, "tcp://"+wkTCP), append(bt.wkWS, "ws://"+wkWS)
		bt.metrics = append(bt.metrics, gm)
		if err := bt.start("-role", "gateway", "-ws", ws, "-metrics", gm, "-cluster", link,
			"-wukongim-api", "", "-wukongim-tcp", wkTCP, "-wukongim-ws", wkWS, "-wildfire-admin", "", "-wildfire-mqtt", ""); err != nil {
			bt.stop()
			return nil, err
		}
	}
	for _, m := range bt.metrics {
		if err := waitHealthy("http://"+m+"/metrics", 30*time.Second); err != nil {
			bt.stop()
			return nil, err
		}
	}
	return bt, nil
}

func waitHealthy(url string, limit time.Duration) error {
	if !waitEvery(100*time.Millisecond, limit, func() bool { return stack.Healthy(url) }) {
		return fmt.Errorf("%s did not answer within %s", url, limit)
	}
	return nil
}

// metric sums a series family (optionally with a label selector prefix,
// e.g. `x{result="ok"}`) over the given /metrics endpoints.
func metric(endpoints []string, name string) float64 { return metrics(endpoints, name)[0] }

// metrics is metric for several families, from one scrape of each endpoint.
func metrics(endpoints []string, names ...string) []float64 {
	sums := make([]float64, len(names))
	for _, ep := range endpoints {
		resp, err := http.Get("http://" + ep + "/metrics")
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			for i, name := range names {
				if strings.HasPrefix(line, name+" ") || strings.HasPrefix(line, name+"{") {
					f := strings.Fields(line)
					v, _ := strconv.ParseFloat(f[len(f)-1], 64)
					sums[i] += v
				}
			}
		}
		resp.Body.Close()
	}
	return sums
}

// waitFor polls until cond holds, or the limit passes.
func waitFor(limit time.Duration, cond func() bool) bool {
	return waitEvery(500*time.Millisecond, limit, cond)
}

// waitEvery checks cond every interval until it holds or limit has passed.
func waitEvery(interval, limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(interval)
	}
	return false
}
