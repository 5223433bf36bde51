// Package live is the live view of a run without Grafana: a page on
// loopback, served while the run lasts, that draws the IM benchmark
// dashboard's panels for the run from Prometheus (the report's charts,
// refreshed). In compose mode Grafana answers, and the dashboard's URL with
// the run selected is the live view.
package live

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
	"github.com/imbench/imbench/internal/stack"
	"github.com/imbench/imbench/report"
)

// composeGrafana is where compose/docker-compose.yml publishes Grafana.
const composeGrafana = "http://127.0.0.1:3000"

// Addr is where the live view listens: IM_LIVE_ADDR, which must be a
// loopback host:port, else a free port on 127.0.0.1.
func Addr() (string, error) {
	a := os.Getenv("IM_LIVE_ADDR")
	if a == "" {
		return "127.0.0.1:0", nil
	}
	host, port, err := net.SplitHostPort(a)
	ip := net.ParseIP(host)
	if _, perr := strconv.ParseUint(port, 10, 16); err != nil || perr != nil || ip == nil || !ip.IsLoopback() {
		return "", fmt.Errorf("IM_LIVE_ADDR must be a loopback address and port such as 127.0.0.1:8089, got %q", a)
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

// Start serves run runID's live page on loopback, from the native stack's
// Prometheus, and prints its URL; about says what runs where. stop (once
// or more) ends it, leaving nothing listening. Without Prometheus there is
// nothing to show: one line says so.
func Start(runID, target, about string, started time.Time, components []report.Component) (stop func()) {
	v := StartView(target, components)
	v.Show(runID, about, started)
	return v.Stop
}

// View is a live view whose run may change while it is served: a limit
// search shows each step's run in turn at the same address.
type View struct {
	v    *view
	stop func()
}

// StartView serves a live view, showing nothing until Show; a nil-safe
// View that does nothing where there is no Prometheus (one line says so).
func StartView(target string, components []report.Component) *View {
	if os.Getenv("IMBENCH_NO_OBSERVE") == "1" {
		return &View{} // the run reports to nobody (imbench bench)
	}
	prom := "http://" + stack.Addrs().Prometheus
	if !stack.Healthy(prom + "/-/ready") {
		fmt.Printf("imbench: no live view: Prometheus is not up (%s)\n", prom)
		return &View{}
	}
	_, every, err := benchmarkDashboard()
	if err != nil {
		fmt.Println("imbench: no live view:", err)
		return &View{}
	}
	addr, err := Addr() // checked before load; read again here
	if err != nil {
		fmt.Println("imbench: no live view:", err)
		return &View{}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Println("imbench: no live view:", err)
		return &View{}
	}
	v := &view{every: every, opts: report.LiveOptions{
		Prom:   report.Prom{URL: prom, HTTP: &http.Client{Timeout: every}},
		Target: target, Every: every, Components: components}}
	srv := &http.Server{Handler: v, ReadHeaderTimeout: every}
	go srv.Serve(ln)
	fmt.Printf("imbench: live view http://%s/ (refreshes every %g s)\n", ln.Addr(), every.Seconds())
	var once sync.Once
	return &View{v: v, stop: func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), every)
			defer cancel()
			if srv.Shutdown(ctx) != nil {
				srv.Close()
			}
		})
	}}
}

// Show makes the view draw run runID from started on; about heads the page.
func (lv *View) Show(runID, about string, started time.Time) { lv.ShowStep("", runID, about, started) }

// ShowStep is Show for a step of limit search searchID: the page has the
// search's figures too.
func (lv *View) ShowStep(searchID, runID, about string, started time.Time) {
	if lv.v == nil {
		return
	}
	lv.v.mu.Lock()
	lv.v.opts.SearchID, lv.v.opts.RunID, lv.v.opts.About, lv.v.opts.From = searchID, runID, about, started
	lv.v.page = nil
	lv.v.mu.Unlock()
}

// Stop ends the view, leaving nothing listening.
func (lv *View) Stop() {
	if lv.stop != nil {
		lv.stop()
	}
}

// view renders the page at most once per half refresh, however many
// browsers watch; nobody watching costs nothing.
type view struct {
	opts  report.LiveOptions
	every time.Duration

	mu   sync.Mutex
	page []byte
	at   time.Time
}

func (v *view) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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

func (v *view) current(ctx context.Context) ([]byte, error) {
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

// Grafana is the live view in compose mode: it prints the URL of Grafana's
// IM benchmark dashboard with run runID selected, from its start,
// refreshing. Nothing is served here: stop does nothing.
func Grafana(runID string, started time.Time) (stop func()) {
	none := func() {}
	if !stack.Healthy(composeGrafana + "/api/health") {
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
		composeGrafana, d.UID, slug, url.QueryEscape(runID), started.UnixMilli(), d.Refresh)
	return none
}
