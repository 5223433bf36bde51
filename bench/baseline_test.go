package bench

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// gatewayStub is a WebSocket server that holds connections (gorilla's
// default ping handler answers pings), or drops each after dropAfter.
func gatewayStub(t *testing.T, dropAfter time.Duration) string {
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		if dropAfter > 0 {
			c.SetReadDeadline(time.Now().Add(dropAfter))
		}
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

func TestBenchBaselineHoldHeartbeats(t *testing.T) {
	url := gatewayStub(t, 0)
	h := &baselineHold{ping: 50 * time.Millisecond, readDeadline: 300 * time.Millisecond, parallel: 4,
		stopping: make(chan struct{})}
	for range 20 {
		h.urls = append(h.urls, url+"/?sendID=u&token=secret")
	}
	h.connectAll()
	time.Sleep(700 * time.Millisecond) // past the client's read deadline: only pongs keep it
	h.stop()
	r := h.rep
	if r.Connected != 20 || r.ConnectErrors != 0 || r.Drops != 0 || r.PingErrors != 0 {
		t.Fatalf("connected %d, connect errors %d, drops %d, ping errors %d (%s)", r.Connected, r.ConnectErrors, r.Drops, r.PingErrors, r.FirstError)
	}
	if r.Pings < 20*5 || r.Pongs < 20*5 {
		t.Errorf("%d pings and %d pongs over 700 ms at 50 ms for 20 users", r.Pings, r.Pongs)
	}
}

func TestBenchBaselineHoldCountsDropsAndErrors(t *testing.T) {
	url := gatewayStub(t, 100*time.Millisecond) // the server reads nothing: pings do not keep it
	h := &baselineHold{ping: time.Hour, readDeadline: 5 * time.Second, parallel: 2, stopping: make(chan struct{})}
	h.urls = []string{url, url, "ws://127.0.0.1:1/?token=secret"}
	h.connectAll()
	time.Sleep(400 * time.Millisecond)
	h.stop()
	r := h.rep
	if r.Connected != 2 || r.ConnectErrors != 1 || r.Drops != 2 {
		t.Fatalf("connected %d, connect errors %d, drops %d; want 2, 1, 2", r.Connected, r.ConnectErrors, r.Drops)
	}
	if strings.Contains(r.FirstError, "secret") {
		t.Errorf("the first error shows the token: %s", r.FirstError)
	}
}

func TestBenchRunProcesses(t *testing.T) {
	dir := t.TempDir()
	// A script named imbench: its comm is imbench, as the CLI's is.
	script := filepath.Join(dir, "imbench")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	start := func(name string, args ...string) int {
		c := exec.Command(name, args...)
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); c.Wait() })
		return c.Process.Pid
	}
	// The run's first process starts a segment child (imbench) and a helper
	// (not imbench); another imbench names the run; a third is another run's.
	root := start("sh", "-c", script+" -segment 1 & sleep 30; wait")
	named := start(script, "run", "-run-id", "r1")
	other := start(script, "run", "-run-id", "r2")
	var got []int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = runProcesses(root, "r1"); len(got) == 3 {
			break
		}
	}
	if len(got) != 3 || !slices.Contains(got, root) || !slices.Contains(got, named) || slices.Contains(got, other) {
		t.Fatalf("processes of run r1 rooted at %d: %v; want the root, its imbench child and %d, not %d", root, got, named, other)
	}
}

func TestBenchBaselineRatio(t *testing.T) {
	ours := &holdResult{RSSPerUserBytes: 5000, CPUPer1000UsersPerSec: 0.001}
	base := &holdResult{RSSPerUserBytes: 25000, CPUPer1000UsersPerSec: 0.0015}
	r := baselineRatio(ours, base)
	if r["rss_per_user"] != 5 || r["cpu_per_user"] != 1.5 {
		t.Errorf("ratio %v, want 5× memory and 1.5× CPU", r)
	}
	if baselineRatio(nil, base) != nil || baselineRatio(ours, nil) != nil {
		t.Error("a ratio without both measurements")
	}
}
