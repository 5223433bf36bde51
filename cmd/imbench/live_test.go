package main

import (
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/badinput"
)

// checkLive: while a run goes, `imbench run` prints a loopback URL; the page
// there draws the run's dashboard panels from Prometheus, asks no other host
// for anything, and refreshes its data; once the run has ended nothing listens
// there, and the page says it stopped.
func checkLive(t *testing.T, s *testStack) {
	r := s.startRun(t, "4")
	m := r.waitFor(regexp.MustCompile(`imbench: live view (http://127\.0\.0\.1:\d+/) \(refreshes every ([\d.]+) s\)`), 2*time.Minute)
	if m == nil {
		t.Fatalf("no live view URL:\n%s", r.out.String())
	}
	base := m[1]
	secs, _ := strconv.ParseFloat(m[2], 64)
	every := time.Duration(secs * float64(time.Second))
	c := openBrowser(t)
	c.navigate(base)
	first := c.dataTime()

	// Until every chart has data and the data was refreshed, or the run ends.
	var charts []chartCheck
	var figures map[string]string
	refreshed := false
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(every / 5) {
		charts, figures = c.charts(), c.figures()
		refreshed = refreshed || c.dataTime() != first
		if refreshed && len(charts) > 0 && allHaveData(charts) {
			break
		}
		select {
		case <-r.done:
			t.Fatalf("the run ended before the live page showed it all: %+v\n%s", charts, r.out.String())
		default:
		}
	}
	if !refreshed {
		t.Errorf("the page's data time stayed %s", first)
	}
	titles := map[string]bool{}
	for _, ch := range charts {
		titles[strings.SplitN(ch.Title, " ", 2)[0]] = true
		if ch.Width <= 0 || ch.Height <= 0 || ch.Points == 0 || ch.Lines == 0 || ch.Length <= 0 {
			t.Errorf("chart %q drew nothing: %+v", ch.Title, ch)
		}
	}
	for _, want := range []string{"Online", "Messages", "End-to-end", "Send", "CPU", "Resident"} {
		if !titles[want] {
			t.Errorf("no %s chart in %+v", want, charts)
		}
	}
	for _, ch := range charts {
		if strings.HasPrefix(ch.Title, "Messages per minute") && ch.Lines < 2 {
			t.Errorf("messages per minute should draw sent and delivered: %+v", ch)
		}
	}
	if n, _ := strconv.Atoi(strings.ReplaceAll(figures["Sent"], ",", "")); n <= 0 {
		t.Errorf("figure Sent is %q", figures["Sent"])
	}
	if !regexp.MustCompile(`^[1-9][\d,]* received / [1-9][\d,]* expected$`).MatchString(figures["Delivered / expected"]) {
		t.Errorf("figure Delivered / expected is %q", figures["Delivered / expected"])
	}
	for _, u := range c.requested() {
		if !strings.HasPrefix(u, base) {
			t.Errorf("the live page requested %s", u)
		}
	}

	// the run has ended once imbench writes the results; the report comes after.
	if r.waitFor(regexp.MustCompile(`imbench: results in`), 10*time.Minute) == nil {
		t.Fatalf("the run wrote no results:\n%s", r.out.String())
	}
	host := strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/")
	if conn, err := net.DialTimeout("tcp", host, every); err == nil {
		conn.Close()
		t.Errorf("%s still listens after the run ended", host)
	}
	stopped := false
	for i := 0; i < 3*5 && !stopped; i++ { // three refreshes, five looks each
		time.Sleep(every / 5)
		stopped = strings.Contains(c.text(), "The live view has stopped")
	}
	if !stopped {
		t.Error("the page does not say the live view stopped")
	}
	r.wait(t)
}

func allHaveData(charts []chartCheck) bool {
	for _, c := range charts {
		if c.Points == 0 || c.Length <= 0 {
			return false
		}
	}
	return true
}

// dataTime is when the live page's data was read from Prometheus.
func (c *cdp) dataTime() string {
	c.t.Helper()
	var v string
	c.eval(`JSON.stringify(document.querySelector('meta[name=imbench-data-time]').content)`, &v)
	return v
}

// figures are the rows of the page's first table: figure → value.
func (c *cdp) figures() map[string]string {
	c.t.Helper()
	v := map[string]string{}
	c.eval(`JSON.stringify(Object.fromEntries([...document.querySelectorAll('table')[0]?.rows ?? []]
		.filter(r => r.cells.length == 2 && r.cells[0].tagName == 'TD').map(r => [r.cells[0].textContent, r.cells[1].textContent])))`, &v)
	return v
}

// text is the page's visible text.
func (c *cdp) text() string {
	c.t.Helper()
	var v string
	c.eval(`JSON.stringify(document.body.innerText)`, &v)
	return v
}

// IM_LIVE_ADDR off loopback is refused before anything starts: parseRun
// checks it first (report/live says what it accepts).
func TestLiveAddrIsLoopbackOnly(t *testing.T) {
	t.Setenv("IM_LIVE_ADDR", "0.0.0.0:8089")
	if _, err := parseRun([]string{"-scenario", "openim/test1"}); !badinput.Is(err) || strings.Contains(err.Error(), "\n") {
		t.Errorf("run with IM_LIVE_ADDR=0.0.0.0:8089: %v", err)
	}
}
