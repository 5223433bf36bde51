package main

// Pages checked in Debian's headless Chromium (report.html, the live view),
// driven over the DevTools protocol: no name resolves (report.html's network
// is emulated offline), every request the page makes is recorded, and each
// chart's drawn geometry is measured.

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

type chartCheck struct {
	Title  string  `json:"title"`
	Points int     `json:"points"`
	Lines  int     `json:"lines"`
	Length float64 `json:"length"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// browseReport opens a report offline in headless Chromium and returns what
// each chart drew and every URL the page requested.
func browseReport(t *testing.T, path string) ([]chartCheck, []string) {
	t.Helper()
	c := openBrowser(t)
	c.call("Network.emulateNetworkConditions", map[string]any{"offline": true, "latency": 0,
		"downloadThroughput": -1, "uploadThroughput": -1})
	abs, _ := filepath.Abs(path)
	c.navigate("file://" + abs)
	return c.charts(), c.requested()
}

// openBrowser starts Debian's headless Chromium with a fresh profile, no
// name resolution (only loopback addresses are reached), and attaches to its
// page with the network and page domains on. It stops, renderers and all,
// when the test ends.
func openBrowser(t *testing.T) *cdp {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is not installed: run `make test` (it installs Debian's chromium)")
	}
	profile, err := os.MkdirTemp("", "imbench-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--user-data-dir="+profile, "--remote-debugging-port=0",
		"--window-size=1200,3000", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its renderers too, on the way out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		os.RemoveAll(profile)
	})
	var port string
	for i := 0; i < 300 && port == ""; i++ { // 30 s: a busy machine starts it slowly
		time.Sleep(100 * time.Millisecond)
		if b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort")); err == nil {
			port = strings.SplitN(string(b), "\n", 2)[0]
		}
	}
	if port == "" {
		t.Fatal("chromium did not open its DevTools port")
	}
	var targets []struct {
		Type string `json:"type"`
		WS   string `json:"webSocketDebuggerUrl"`
	}
	var page string
	for i := 0; i < 50 && page == ""; i++ {
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err == nil {
			json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
		}
		for _, tg := range targets {
			if tg.Type == "page" {
				page = tg.WS
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if page == "" {
		t.Fatal("no page target")
	}
	ws, _, err := websocket.DefaultDialer.Dial(page, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	c := &cdp{t: t, ws: ws}
	c.call("Network.enable", nil)
	c.call("Page.enable", nil)
	return c
}
