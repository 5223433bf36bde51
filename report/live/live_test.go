package live

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestLiveAddrIsLoopbackOnly(t *testing.T) {
	for addr, ok := range map[string]bool{"": true, "127.0.0.1:8089": true, "[::1]:0": true, "127.0.0.2:9000": true,
		"0.0.0.0:8089": false, ":8089": false, "localhost:8089": false, "10.0.0.5:8089": false, "127.0.0.1": false, "127.0.0.1:99999": false} {
		t.Setenv("IM_LIVE_ADDR", addr)
		_, err := Addr()
		if (err == nil) != ok {
			t.Errorf("IM_LIVE_ADDR=%q: %v", addr, err)
		}
	}
}

// The live server against a Prometheus that answers every query with no
// data: a loopback URL, a page that says so, no answer to another Host, and
// nothing listening after stop. Without Prometheus: one line, no URL.
func TestLiveServesWhileTheRunLasts(t *testing.T) {
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`))
	}))
	defer prom.Close()
	t.Setenv("IMBENCH_NO_OBSERVE", "")
	t.Setenv("IM_LIVE_ADDR", "")
	t.Setenv("IMBENCH_PROMETHEUS", strings.TrimPrefix(prom.URL, "http://"))

	var stop func()
	out := stdoutOf(t, func() {
		stop = Start("live-test", "reference", "openim/test1 on reference", time.Now().Add(-time.Minute), nil)
	})
	m := regexp.MustCompile(`^imbench: live view (http://127\.0\.0\.1:\d+/) \(refreshes every [\d.]+ s\)\n$`).FindStringSubmatch(out)
	if m == nil {
		stop()
		t.Fatalf("Start printed %q", out)
	}
	page := get(t, m[1], "")
	for _, want := range []string{"run live-test", "<figure class=\"chart\">", "No data yet.", "imbench-data-time", "setTimeout(tick"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	if strings.Contains(page, "src=") || strings.Contains(page, "href=") {
		t.Error("the page loads something")
	}
	if got := get(t, m[1], "rebound.example:80"); !strings.Contains(got, "loopback only") {
		t.Errorf("another Host got %q", got)
	}
	stop()
	stop() // a second stop is harmless (a deferred one after the first)
	if conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(m[1], "http://"), "/")); err == nil {
		conn.Close()
		t.Error("still listening after stop")
	}

	prom.Close()
	out = stdoutOf(t, func() { Start("live-test", "reference", "openim/test1 on reference", time.Now(), nil)() })
	if !regexp.MustCompile(`^imbench: no live view: Prometheus is not up \(http://[^)]+\)\n$`).MatchString(out) {
		t.Errorf("without Prometheus, Start printed %q", out)
	}
}

// stdoutOf is what f prints.
func stdoutOf(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	f()
	os.Stdout = saved
	w.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}

func get(t *testing.T, u, host string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
