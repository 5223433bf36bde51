package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The reference target keeping its state in a log (-state-log), killed
// (SIGKILL) in the middle of a run and started again on the same ports
// with the same flags: the users log back in and every acknowledged
// message is still there, so nothing is lost.
func TestRestartWithStateLogLosesNothing(t *testing.T) {
	tg, args := targetArgs(t, "-state-log", filepath.Join(t.TempDir(), "state.log"))
	first := launchTarget(t, tg, args)

	results := t.TempDir()
	type outcome struct {
		r   result
		err error
	}
	done := make(chan outcome, 1)
	bin := filepath.Join(toolsDir(t), "imbench")
	go func() {
		r, err := runCLI(bin, "../..", tg.env(),
			"run", "-scenario", "openim/test1", "-scale", "0.25", "-rate", "12", "-results", results)
		done <- outcome{r, err}
	}()

	// Kill it once messages flow, well before the run ends.
	accepted := func() int64 {
		return tg.counter(t, "single_chat_msg_process_success_total") + tg.counter(t, "group_chat_msg_process_success_total")
	}
	for deadline := time.Now().Add(2 * time.Minute); accepted() < 100; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no traffic reached the target within 2 minutes")
		}
		select {
		case o := <-done:
			t.Fatalf("the run ended before the kill: exit %d %v\n%s\n%s", o.r.code, o.err, o.r.stdout, o.r.stderr)
		default:
		}
	}
	killedAt := accepted()
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	time.Sleep(500 * time.Millisecond)
	launchTarget(t, tg, args)
	t.Logf("killed after %d messages, restarted", killedAt)

	var o outcome
	select {
	case o = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("the run did not end within 5 minutes of the restart")
	}
	if o.err != nil || o.r.code != 0 {
		t.Fatalf("imbench run: exit %d %v\nstdout:\n%s\nstderr:\n%s", o.r.code, o.err, o.r.stdout, o.r.stderr)
	}
	raw, err := os.ReadFile(filepath.Join(results, "latest", "summary.json"))
	if err != nil {
		t.Fatalf("no summary.json: %v\n%s", err, o.r.stdout)
	}
	var s runSummary
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	d := s.Deliveries
	t.Logf("sent %d acked %d failed %d; expected %d received %d (pulled %d) lost %d corrupted %d; disconnects %d reconnects %d",
		s.Messages.Sent, s.Messages.Acked, s.Messages.SendFailed, d.Expected, d.Received, d.ByPull, d.Lost, d.Corrupted,
		s.Users.Disconnects, s.Users.Reconnects)
	if d.Lost != 0 || d.Corrupted != 0 || s.Users.Reconnects == 0 || d.Expected == 0 {
		t.Fatalf("after a restart with the state log: lost %d corrupted %d reconnects %d (expected %d)",
			d.Lost, d.Corrupted, s.Users.Reconnects, d.Expected)
	}
}
