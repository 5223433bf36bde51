package main

// Faults of the stack itself, end to end: a gateway killed, the target
// restarted without its state, a segment's process killed, a reconnect storm.
// `make chaos` runs these (and the state-log restart, and Prometheus killed
// in the stack test) on their own, verbosely.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/testmachine"
)

// A core and two gateway processes; gateway 1 killed (-9) once messages
// flow and started again once its users are back. They come back at the
// other gateway (each reconnect attempt tries the next), pull what they
// missed, and nothing is lost; the outage is in summary.json and the
// report. openim/storm's users are all online from the start (no storm
// here), so every login the other gateway sees meanwhile is a user moving.
func TestChaosGatewayKilled(t *testing.T) {
	testmachine.Shared(t)
	secret := "chaos-" + fmt.Sprint(time.Now().UnixNano())
	cluster := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	core := target{secret: secret, api: fmt.Sprintf("http://127.0.0.1:%d", freePort(t)),
		metrics: fmt.Sprintf("http://127.0.0.1:%d/metrics", freePort(t))}
	launchTarget(t, core, []string{"-role", "core", "-cluster", cluster, "-api", strings.TrimPrefix(core.api, "http://"),
		"-metrics", strings.TrimPrefix(strings.TrimSuffix(core.metrics, "/metrics"), "http://"),
		"-wukongim-api", "", "-wildfire-admin", "", "-wildfire-mqtt", ""})
	type gateway struct {
		args    []string
		cmd     *exec.Cmd
		ws, met string
	}
	gws := make([]*gateway, 2)
	for i := range gws {
		g := &gateway{ws: fmt.Sprintf("127.0.0.1:%d", freePort(t)), met: fmt.Sprintf("127.0.0.1:%d", freePort(t))}
		g.args = []string{"-role", "gateway", "-cluster", cluster, "-ws", g.ws, "-metrics", g.met, "-wukongim-tcp", "", "-wukongim-ws", ""}
		g.cmd = startGateway(t, g.args, g.met)
		gws[i] = g
	}
	gwMetrics := func(g *gateway, name string) int64 {
		return target{metrics: "http://" + g.met + "/metrics"}.counter(t, name)
	}

	results := t.TempDir()
	env := []string{"IM_API_URL=" + core.api, "IM_WS_URL=ws://" + gws[0].ws + ",ws://" + gws[1].ws, "IM_SECRET=" + secret,
		"IM_STORM_AT=off", "IM_SCALE=0.1", "IM_RATE=20", "IM_DURATION=20s"}
	run := startImbench(t, env, "run", "-scenario", "openim/storm", "-results", results)
	run.until(t, "traffic", 2*time.Minute, func() bool { return accepted(t, core) >= 60 })
	const logins = `imbench_target_ws_logins_total{result="ok"}`
	held, before := gwMetrics(gws[0], logins), gwMetrics(gws[1], logins)
	gws[0].cmd.Process.Signal(syscall.SIGKILL)
	gws[0].cmd.Wait()
	run.until(t, "gateway 1's users at gateway 2", time.Minute, func() bool { return gwMetrics(gws[1], logins)-before >= held })
	moved := gwMetrics(gws[1], logins) - before
	gws[0].cmd = startGateway(t, gws[0].args, gws[0].met)

	if code, out := run.ended(t, 5*time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	s := readSummary(t, results)
	d := s.Deliveries
	if d.Expected == 0 || d.Lost != 0 || d.Corrupted != 0 {
		t.Fatalf("expected %d, lost %d, corrupted %d", d.Expected, d.Lost, d.Corrupted)
	}
	if s.Outages == nil || len(s.Outages.Windows) != 1 {
		t.Fatalf("outages %+v for one gateway killed", s.Outages)
	}
	w := s.Outages.Windows[0]
	if w.Dropped != held || w.Dropped != s.Users.Disconnects || w.Reconnects != w.Dropped || w.End.IsZero() || w.BackOnlineMs <= 0 {
		t.Fatalf("outage %+v; gateway 1 held %d, %d disconnects", w, held, s.Users.Disconnects)
	}
	md, _ := os.ReadFile(filepath.Join(results, "latest", "report.md"))
	if !strings.Contains(string(md), "## Outages") {
		t.Fatal("the report has no Outages section")
	}
	t.Logf("%d users dropped, back after %.0f ms (%d reconnects, %v per second), %d moved gateway; %d deliveries, lost 0",
		w.Dropped, w.BackOnlineMs, w.Reconnects, w.PerSecond, moved, d.Received)
}

// The target killed mid-run and started again WITHOUT a state log: it
// knows none of the users. The run ends in one line saying so, well within
// the reconnect attempts, instead of retrying for minutes.
func TestChaosRestartWithoutStateEndsInOneLine(t *testing.T) {
	testmachine.Shared(t)
	tg, args := targetArgs(t)
	first := launchTarget(t, tg, args)
	results := t.TempDir()
	run := startImbench(t, tg.env(), "run", "-scenario", "openim/test1", "-scale", "0.25", "-rate", "12", "-results", results)
	run.until(t, "traffic", 2*time.Minute, func() bool { return accepted(t, tg) >= 50 })
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	time.Sleep(300 * time.Millisecond)
	launchTarget(t, tg, args)
	began := time.Now()
	code, out := run.ended(t, 2*time.Minute)
	if code == 0 || strings.Count(out, "the server lost its state") != 1 {
		t.Fatalf("exit %d after a restart without state\n%s", code, out)
	}
	t.Logf("ended %s after the restart, exit %d: %s", time.Since(began).Round(100*time.Millisecond), code,
		out[strings.Index(out, "the server lost its state"):][:120])
}

// A distributed run whose second segment's process is killed (-9) mid-run: the
// merge keeps the other two, names the missing one, and the run exits
// non-zero.
func TestChaosSegmentKilled(t *testing.T) {
	testmachine.Shared(t)
	tg := startTarget(t)
	results := t.TempDir()
	env := append(tg.env(), "IM_LOGIN_WINDOW=4s", "IM_SEND_MARGIN=4s")
	run := startImbench(t, env, "run", "-scenario", "openim/test1", "-scale", "0.25", "-rate", "25", "-segments", "3", "-results", results)
	var seg *os.Process
	run.until(t, "segment 1/3:2/3 sending", 2*time.Minute, func() bool {
		seg = findSegment(results, "1/3")
		return seg != nil && accepted(t, tg) >= 50
	})
	seg.Signal(syscall.SIGKILL)
	code, out := run.ended(t, 5*time.Minute)
	if code == 0 || !strings.Contains(out, "1/3:2/3") {
		t.Fatalf("exit %d with a segment killed\n%s", code, out)
	}
	s := readSummary(t, results)
	if len(s.Missing) != 1 || s.Missing[0] != "1/3:2/3" || s.Messages.Sent == 0 || s.Deliveries.Received == 0 {
		t.Fatalf("merged summary: missing %v, sent %d, received %d", s.Missing, s.Messages.Sent, s.Deliveries.Received)
	}
}

// The openim/storm scenario at a small size: every connection dropped at
// once, one outage window, every user back, nothing lost.
func TestChaosStorm(t *testing.T) {
	testmachine.Shared(t)
	tg := startTarget(t)
	results := t.TempDir()
	r := imbench(t, append(tg.env(), "IM_SCALE=0.2", "IM_DURATION=8s", "IM_STORM_AT=3s"),
		"run", "-scenario", "openim/storm", "-results", results)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	s := readSummary(t, results)
	dropped := tg.counter(t, "imbench_target_fault_disconnects_total")
	if s.Outages == nil || len(s.Outages.Windows) != 1 {
		t.Fatalf("outages %+v for one storm", s.Outages)
	}
	w := s.Outages.Windows[0]
	if dropped != int64(s.Users.Registered) || w.Dropped != dropped || w.Reconnects != dropped || w.End.IsZero() ||
		s.Deliveries.Lost != 0 || s.Deliveries.Expected == 0 {
		t.Fatalf("target dropped %d of %d users; outage %+v; lost %d", dropped, s.Users.Registered, w, s.Deliveries.Lost)
	}
	if !strings.Contains(r.stdout, "| Outages ") {
		t.Fatalf("the table has no Outages row:\n%s", r.stdout)
	}

	// A storm the target does not answer ends the run: it would measure
	// nothing and pass.
	nowhere := fmt.Sprintf("IM_STORM_URL=http://127.0.0.1:%d/fault/storm", freePort(t))
	r = imbench(t, append(tg.env(), "IM_SCALE=0.2", "IM_DURATION=8s", "IM_STORM_AT=2s", nowhere),
		"run", "-scenario", "openim/storm", "-results", t.TempDir())
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "the storm asked of the target failed") {
		t.Fatalf("a storm nobody answered: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
