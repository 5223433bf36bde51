package main

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/testmachine"
)

// The reference target keeping its state in a log (-state-log), killed
// (SIGKILL) in the middle of a run and started again on the same ports
// with the same flags: the users log back in and every acknowledged
// message is still there, so nothing is lost.
func TestRestartWithStateLogLosesNothing(t *testing.T) {
	testmachine.Shared(t)
	tg, args := targetArgs(t, "-state-log", filepath.Join(t.TempDir(), "state.log"))
	first := launchTarget(t, tg, args)
	results := t.TempDir()
	run := startImbench(t, tg.env(), "run", "-scenario", "openim/test1", "-scale", "0.25", "-rate", "12", "-results", results)
	// Kill it once messages flow, well before the run ends.
	run.until(t, "traffic", 2*time.Minute, func() bool { return accepted(t, tg) >= 100 })
	killedAt := accepted(t, tg)
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	time.Sleep(500 * time.Millisecond)
	launchTarget(t, tg, args)
	t.Logf("killed after %d messages, restarted", killedAt)

	run.wait(t)
	s := readSummary(t, results)
	d := s.Deliveries
	t.Logf("sent %d acked %d failed %d; expected %d received %d (pulled %d) lost %d corrupted %d; disconnects %d reconnects %d",
		s.Messages.Sent, s.Messages.Acked, s.Messages.SendFailed, d.Expected, d.Received, d.ByPull, d.Lost, d.Corrupted,
		s.Users.Disconnects, s.Users.Reconnects)
	if d.Lost != 0 || d.Corrupted != 0 || s.Users.Reconnects == 0 || d.Expected == 0 {
		t.Fatalf("after a restart with the state log: lost %d corrupted %d reconnects %d (expected %d)",
			d.Lost, d.Corrupted, s.Users.Reconnects, d.Expected)
	}
}
