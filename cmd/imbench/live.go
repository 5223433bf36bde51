package main

// The live view of a run without Grafana: a page on loopback, served while
// k6 runs, that draws the IM benchmark dashboard's panels for the run from
// Prometheus (the report's charts, refreshed). In compose mode Grafana
// answers, and the dashboard's URL with the run selected is the live view.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/imbench/imbench/dashboards"
	"github.com/imbench/imbench/report"
)

// composeGrafana is where compose/docker-compose.yml publishes Grafana.
const composeGrafana = "http://127.0.0.1:3000"

// liveAddr is where the live view listens: IM_LIVE_ADDR, which must be a
// loopback host:port, else a free port on 127.0.0.1.
func liveAddr() (string, error) {
	a := os.Getenv("IM_LIVE_ADDR")
	if a == "" {
		return "127.0.0.1:0", nil
	}
	host, port, err := net.SplitHostPort(a)
	ip := net.ParseIP(host)
	if _, perr := strconv.ParseUint(port, 10, 16); err != nil || perr != nil || ip == nil || !ip.IsLoopback() {
		return "", badInput("IM_LIVE_ADDR must be a loopback address and port such as 127.0.0.1:8089, got %q", a)
	}
	return a, nil
}

// benchmarkDashboard is the dashboard the live view shows, and its refresh.
func benchmarkDashboard() (dashboards.Dashboard, time.Duration, error) {
	d := dashboards.Build()["im-benchmark.json"]
	every, err := time.ParseDuration(d.Refresh)
	if err == nil && every <= 0 {
		err = errors.New("not positive")
	}
	if err != nil {
		return d, 0, fmt.Errorf("dashboard %s refresh %q: %v", d.UID, d.Refresh, err)
	}
	return d, every, nil
}

// startLive serves the run's live page on loopback and prints its URL;
// stop (once or more) ends it, leaving nothing listening. Without
// Prometheus there is nothing to show: one line says so.
func startLive(rc *runConfig, started time.Time) (stop func()) {
	none := func() {}
	if os.Getenv("IMBENCH_NO_OBSERVE") == "1" {
		return none // the run reports to nobody (imbench bench)
	}
	prom := "http://" + stackAddrs().prometheus
	if !healthy(prom + "/-/ready") {
		fmt.Printf("imbench: no live view: Prometheus is not up (%s)\n", prom)
		return none
	}
	_, every, err := benchmarkDashboard()
	if err != nil {
		fmt.Println("imbench: no live view:", err)
		return none
	}
	addr, err := liveAddr() // checked before load; read again here
	if err != nil {
		fmt.Println("imbench: no live view:", err)
		return none
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Println("imbench: no live view:", err)
		return none
	}
	v := &liveView{every: every, opts: report.LiveOptions{
		Prom:  report.Prom{URL: prom, HTTP: &http.Client{Timeout: every}},
		RunID: rc.runID, About: rc.scenario + " on " + rc.target.Name, From: started, Every: every}}
	srv := &http.Server{Handler: v, ReadHeaderTimeout: every}
	go srv.Serve(ln)
	fmt.Printf("imbench: live view http://%s/ (refreshes every %g s)\n", ln.Addr(), every.Seconds())
	var once sync.Once
	return func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), every)
			defer cancel()
			if srv.Shutdown(ctx) != nil {
				srv.Close()
			}
		})
	}
}

// liveView renders the page at most once per half refresh, however many
// browsers watch; nobody watching costs nothing.
type liveView struct {
	opts  report.LiveOptions
	every time.Duration

	mu   sync.Mutex
	page []byte
	at   time.Time
}

func (v *liveView) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) { // a page elsewhere reaching us by DNS rebinding
		http.Error(w, "imbench live view: loopback only", http.StatusForbidden)
		return
	}
	if r.URL.Path != "/" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		http.NotFound(w, r)
		return
	}
	page, err := v.current(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(page)
}

func (v *liveView) current(ctx context.Context) ([]byte, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.page != nil && time.Since(v.at) < v.every/2 {
		return v.page, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*v.every)
	defer cancel()
	now := time.Now()
	page, err := report.LivePage(ctx, v.opts, now)
	if err != nil {
		return nil, err
	}
	v.page, v.at = page, now
	return page, nil
}

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return ip.IsLoopback()
	}
	return host == "localhost"
}

// grafanaLive is the live view in compose mode: Grafana's IM benchmark
// dashboard with the run selected, from its start, refreshing.
func grafanaLive(rc *runConfig, started time.Time) (stop func()) {
	none := func() {}
	if !healthy(composeGrafana + "/api/health") {
		fmt.Printf("imbench: no live view: Grafana is not up (%s)\n", composeGrafana)
		return none
	}
	d, _, err := benchmarkDashboard()
	if err != nil {
		fmt.Println("imbench: no live view:", err)
		return none
	}
	slug := strings.ReplaceAll(strings.ToLower(d.Title), " ", "-")
	fmt.Printf("imbench: live view %s/d/%s/%s?var-run_id=%s&from=%d&to=now&refresh=%s\n",
		composeGrafana, d.UID, slug, url.QueryEscape(rc.runID), started.UnixMilli(), d.Refresh)
	return none
}
