package runner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
)

// A class on the timeline sends in its window alone: groups from 2 s to
// 4 s beside pairs from the start. Its sends begin 2 s after the pairs',
// it sends all it planned, its pace is judged over its own two seconds
// (send_pace met), and the per-second plan has its messages in seconds 2
// and 3 only.
func TestAClassSendsInItsWindowOnTheTimeline(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	script := writeScript(t, `import im from 'imbench';
export const plan = im.workload({ name: 'wukongim/timeline', classes: [
  { kind: 'pairs', pairs: 4, allOnline: true, totalRate: 4, duration: '5s' },
  { kind: 'groups', groups: 2, members: 3, allOnline: true, totalRate: 10, startAt: '2s', stopAt: '4s' },
] });
export const options = { thresholds: { send_pace: ['value>=0.9'], lost: ['count==0'] } };
`)
	code, out, s := runWuKongIM(t, tg, script, "timeline1")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, out)
	}
	c := s.Messages.ByClass
	if len(c) != 2 || c[0].Sent != 20 || c[1].Sent != 20 || c[1].Unsent != 0 || c[1].PlannedSeconds > 2 || c[1].PlannedSeconds < 1.8 {
		t.Fatalf("by class %+v", c)
	}
	if late := c[1].FirstSendMs - c[0].FirstSendMs; late < 1800 || late > 2400 {
		t.Fatalf("the groups' first send %d ms after the pairs', want 2 s", late)
	}
	pps := s.Messages.PlannedPerSecond
	if len(pps) < 5 || pps[0] != 4 || pps[1] != 4 || pps[2] != 14 || pps[3] != 14 || pps[4] != 4 {
		t.Fatalf("planned per second %v, want 4 4 14 14 4", pps)
	}
}

// A burst at an instant: 10 messages in each of 4 groups at 1 s, each
// sender writing its own back to back, beside pairs sending from the
// start. All 40 are sent within moments of 1 s, none lost, and the plan
// has them in second 1.
func TestABurstAtAnInstant(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	script := writeScript(t, `import im from 'imbench';
export const plan = im.workload({ name: 'wukongim/burst', classes: [
  { kind: 'pairs', pairs: 4, allOnline: true, totalRate: 4, duration: '3s' },
  { kind: 'groups', groups: 4, members: 5, allOnline: true, burstAt: '1s', messages: 10 },
] });
export const options = { thresholds: { lost: ['count==0'], unsent: ['count==0'] } };
`)
	code, out, s := runWuKongIM(t, tg, script, "burst1")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, out)
	}
	c := s.Messages.ByClass
	if len(c) != 2 || c[1].Sent != 40 || c[1].Unsent != 0 {
		t.Fatalf("by class %+v", c)
	}
	if at := c[1].FirstSendMs - c[0].FirstSendMs; at < 800 || at > 1400 {
		t.Fatalf("the burst began %d ms after the pairs' first send, want 1 s", at)
	}
	if spread := c[1].LastSendMs - c[1].FirstSendMs; spread > 500 {
		t.Fatalf("the burst's 40 messages took %d ms to send", spread)
	}
	if pps := s.Messages.PlannedPerSecond; len(pps) < 2 || pps[1] != 44 {
		t.Fatalf("planned per second %v, want 44 in second 1", pps)
	}
}

// Away spells take users whatever their login's time: players logging in
// over the first second, all away from 2 s to 3 s, log out and back, and
// every message of theirs is still delivered (pulled on their return).
func TestUsersLoggedInAtTheirTimeGoAwayToo(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	script := writeScript(t, `import im from 'imbench';
export const plan = im.workload({ name: 'wukongim/away-timed', classes: [
  { kind: 'groups', groups: 2, members: 6, senders: 1, online: 5, loginOver: '1s', away: [{ at: '2s', for: '1s' }], totalRate: 4, duration: '4s' },
] });
export const options = { thresholds: { lost: ['count==0'] } };
`)
	code, out, s := runWuKongIM(t, tg, script, "away1")
	u := s.Users
	if code != ExitOK || u.TimedLogins != 10 || u.Logouts != 10 || u.LoginsBack != 10 || s.Deliveries.Lost != 0 || s.Deliveries.ByReturnPull == 0 {
		t.Fatalf("exit %d: timed logins %d, logouts %d, back %d, lost %d, by return pull %d\n%s", code, u.TimedLogins, u.Logouts, u.LoginsBack,
			s.Deliveries.Lost, s.Deliveries.ByReturnPull, out)
	}
}

// writeScript is a scenario file of src in the test's folder.
func writeScript(t *testing.T, src string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "scenario.js")
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return script
}
