package sidebyside_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imbench/imbench/bench/sidebyside"
)

// The test binary doubles as the server and the tools: a "server" counts
// the deliveries a tool posts and spends the same CPU on each, whoever
// sends; a "tool" spends its own CPU per delivery, in steps.
func TestMain(m *testing.M) {
	switch os.Getenv("SBS_ROLE") {
	case "server":
		fakeServer(os.Getenv("SBS_ADDR"))
	case "tool":
		fakeTool(os.Getenv("SBS_ADDR"), os.Getenv("SBS_BURN"))
	default:
		os.Exit(m.Run())
	}
}

func burn(d time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ru0 := cpuNow()
	for cpuNow()-ru0 < d {
		for x := range 2000 {
			_ = strconv.Itoa(x)
		}
	}
}

func cpuNow() time.Duration {
	raw, _ := os.ReadFile("/proc/thread-self/schedstat")
	ns, _ := strconv.ParseInt(strings.Fields(string(raw))[0], 10, 64)
	return time.Duration(ns)
}

func fakeServer(addr string) {
	var n, adds atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/add", func(w http.ResponseWriter, r *http.Request) {
		k, _ := strconv.Atoi(r.URL.Query().Get("n"))
		burn(time.Duration(k) * 50 * time.Microsecond)
		n.Add(int64(k))
		adds.Add(1)
	})
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "# TYPE deliveries_total counter\ndeliveries_total{node=\"a\"} %d\ndeliveries_total{node=\"b\"} 0\ndeliveries_totalx 99\nadds_total %d\n", n.Load(), adds.Load())
	})
	http.ListenAndServe(addr, mux)
}

// fakeTool sends 2,000 deliveries in 4 steps of 500, spending burn per
// delivery.
func fakeTool(addr, per string) {
	d, _ := time.ParseDuration(per)
	for range 4 {
		burn(500 * d)
		resp, err := http.Get("http://" + addr + "/add?n=500")
		if err != nil {
			os.Exit(1)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		time.Sleep(300 * time.Millisecond)
	}
}

// Two tools, one spending four times the other's CPU per delivery, on a
// server whose cost per delivery is the same under both: the deliveries
// are the server's count exactly, the tools' ratio shows, the server's
// does not, and the rounds alternate which tool goes first.
func TestSideBySideMeasuresEachToolAndTheServer(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pid")
	addr := "127.0.0.1:23871"
	before := fmt.Sprintf(`SBS_ROLE=server SBS_ADDR=%s %s & echo $! > %s; for i in $(seq 50); do [ -s %s ] && break; sleep 0.1; done; sleep 0.3`, addr, self, pidfile, pidfile)
	after := fmt.Sprintf(`kill $(cat %s); while kill -0 $(cat %s) 2>/dev/null; do sleep 0.1; done`, pidfile, pidfile)
	tool := func(burn string) string {
		return fmt.Sprintf("SBS_ROLE=tool SBS_ADDR=%s SBS_BURN=%s %s", addr, burn, self)
	}
	c := sidebyside.Config{
		Tools:  [2]sidebyside.Tool{{Name: "heavy", Command: tool("400us")}, {Name: "light", Command: tool("100us")}},
		Rounds: 2, Before: before, After: after, Server: "cat " + pidfile,
		CountURL: "http://" + addr + "/metrics", CountMetric: "deliveries_total", Also: []string{"adds_total"},
		Every: 100 * time.Millisecond, Timeout: time.Minute,
	}
	var progress strings.Builder
	res, err := sidebyside.Measure(context.Background(), c, &progress)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range res.Runs {
		order = append(order, r.Tool)
		if r.Deliveries != 2000 || r.WindowDeliveries != 2000 {
			t.Fatalf("%s round %d: %v deliveries, %v in the window; the tool sent 2,000", r.Tool, r.Round, r.Deliveries, r.WindowDeliveries)
		}
		if r.WindowSeconds <= 0 || r.WindowSeconds > r.Seconds || r.ServerCPUWindow > r.ServerCPU+0.02 {
			t.Fatalf("%s round %d: window %.2f s of %.2f, server CPU %.3f in it of %.3f", r.Tool, r.Round, r.WindowSeconds, r.Seconds, r.ServerCPUWindow, r.ServerCPU)
		}
		// 4 requests, each read and answered (with the metrics scrapes):
		// counted exactly by the server's counter, and by its system calls.
		if r.AlsoWindow["adds_total"] != 4 || r.ServerReadsWindow < 4 || r.ServerWritesWindow < 4 {
			t.Fatalf("%s round %d: %v adds, %v reads, %v writes in the window; the tool made 4 requests", r.Tool, r.Round,
				r.AlsoWindow["adds_total"], r.ServerReadsWindow, r.ServerWritesWindow)
		}
	}
	if strings.Join(order, ",") != "heavy,light,light,heavy" {
		t.Fatalf("order %v: the rounds alternate which tool goes first", order)
	}
	ratio := map[string]sidebyside.Ratio{}
	for _, r := range res.Ratios {
		ratio[r.Figure] = r
	}
	if r := ratio[sidebyside.FigToolRun]; r.Ratio < 2 || r.Ratio > 8 || r.Low > r.Ratio || r.High < r.Ratio {
		t.Fatalf("tool CPU per delivery: %+v, want about 4", r)
	}
	if r := ratio[sidebyside.FigServerRun]; r.Ratio < 0.5 || r.Ratio > 2 {
		t.Fatalf("server CPU per delivery: %+v, want about 1", r)
	}
	if r := ratio[sidebyside.FigDeliveries]; r.Ratio != 1 {
		t.Fatalf("deliveries: %+v", r)
	}
	if r := ratio[sidebyside.AlsoFigure("adds_total")]; r.Ratio != 1 || r.First != 0.002 {
		t.Fatalf("adds per delivery: %+v, want 4 of 2,000 under both", r)
	}
	md := res.Markdown()
	t.Log("\n" + md)
	if !strings.Contains(md, "| heavy ÷ light |") || !strings.Contains(md, "| adds_total per delivery, send window | 0.002 | 0.002 | 1.00 |") || !strings.Contains(md, "2 alternating rounds") || !strings.Contains(progress.String(), "round 2") {
		t.Fatalf("table:\n%s\nprogress:\n%s", md, progress.String())
	}
	if conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
		conn.Close()
		t.Fatal("a server was left running after the last run")
	}
}

// What cannot run is refused before anything starts.
func TestSideBySideRefusesBadConfigs(t *testing.T) {
	for _, c := range []sidebyside.Config{
		{Rounds: 5, Server: "true", CountURL: "http://127.0.0.1:1/m", CountMetric: "x"},
		{Tools: [2]sidebyside.Tool{{"a", "true"}, {"a", "true"}}, Rounds: 5, Server: "true", CountURL: "u", CountMetric: "x"},
		{Tools: [2]sidebyside.Tool{{"a", "true"}, {"b", "true"}}, Rounds: 0, Server: "true", CountURL: "u", CountMetric: "x"},
		{Tools: [2]sidebyside.Tool{{"a", "true"}, {"b", "true"}}, Rounds: 1, CountURL: "u", CountMetric: "x"},
		{Tools: [2]sidebyside.Tool{{"a", "true"}, {"b", "true"}}, Rounds: 1, Server: "true", CountURL: "u", CountMetric: "x", ServerCPUs: "99"},
		{Tools: [2]sidebyside.Tool{{"a", "true"}, {"b", "true"}}, Rounds: 1, Server: "true", CountURL: "u", CountMetric: "x", Also: []string{"x"}},
		{Tools: [2]sidebyside.Tool{{"a", "true"}, {"b", "true"}}, Rounds: 1, Server: "true", CountURL: "u", CountMetric: "x", Also: []string{"y{a=\"b\"}"}},
	} {
		if _, err := sidebyside.Measure(context.Background(), c, io.Discard); err == nil {
			t.Fatalf("%+v: accepted", c)
		}
	}
}

// A tool that fails ends the measurement with the runs that ended before
// it kept; a -before that fails after starting the server still has
// -after stop it: nothing is left running either way.
func TestSideBySideKeepsWhatEndedAndLeavesNothingRunning(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidfile := filepath.Join(t.TempDir(), "pid")
	addr := "127.0.0.1:23872"
	start := fmt.Sprintf(`SBS_ROLE=server SBS_ADDR=%s %s & echo $! > %s; for i in $(seq 50); do [ -s %s ] && break; sleep 0.1; done; sleep 0.3`, addr, self, pidfile, pidfile)
	after := fmt.Sprintf(`kill $(cat %s); while kill -0 $(cat %s) 2>/dev/null; do sleep 0.1; done`, pidfile, pidfile)
	tool := fmt.Sprintf("SBS_ROLE=tool SBS_ADDR=%s SBS_BURN=10us %s", addr, self)
	down := func() {
		t.Helper()
		if conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			conn.Close()
			t.Fatal("a server was left running")
		}
	}
	c := sidebyside.Config{
		Tools:  [2]sidebyside.Tool{{Name: "works", Command: tool}, {Name: "fails", Command: "exit 3"}},
		Rounds: 3, Before: start, After: after, Server: "cat " + pidfile,
		CountURL: "http://" + addr + "/metrics", CountMetric: "deliveries_total", Every: 100 * time.Millisecond, Timeout: time.Minute,
	}
	res, err := sidebyside.Measure(context.Background(), c, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "round 1, fails") || res == nil || len(res.Runs) != 1 || res.Runs[0].Deliveries != 2000 {
		t.Fatalf("err %v, result %+v", err, res)
	}
	down()
	// A counter the server does not have stops the run before its tool starts.
	c.Tools[1], c.Also = sidebyside.Tool{Name: "never", Command: "touch " + pidfile + ".ran"}, []string{"absent_total"}
	res, err = sidebyside.Measure(context.Background(), c, io.Discard)
	if _, serr := os.Stat(pidfile + ".ran"); err == nil || !strings.Contains(err.Error(), "no absent_total") || len(res.Runs) != 0 || serr == nil {
		t.Fatalf("an absent -also counter: %v, %+v", err, res)
	}
	down()
	c.Also = nil
	c.Before = start + "; exit 1"
	if _, err := sidebyside.Measure(context.Background(), c, io.Discard); err == nil || !strings.Contains(err.Error(), "-before") {
		t.Fatalf("a failed -before: %v", err)
	}
	down()
}
