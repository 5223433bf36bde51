package wildfire_test

import (
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// pair starts a target with faults and logs a and b in.
func pair(t *testing.T, f core.Faults) (*reftest.WFTarget, *client, *client) {
	t.Helper()
	tg := reftest.StartWildfire(t, f, reftest.WFOptions{})
	a, _ := online(t, tg, "a")
	b, _ := online(t, tg, "b")
	return tg, a, b
}

// Skip-push: filed without an MN; the next pull finds it.
func TestFaultSkipPush(t *testing.T) {
	t.Parallel()
	tg, a, b := pair(t, core.Faults{SkipPush: 1, Seed: 1})
	a.mustSend(wire.ConvPrivate, "b", "quiet")
	b.noNotify(200 * time.Millisecond)
	if r := b.pull(0, wire.PullNormal); texts(r) != "[a:quiet]" || r.GetHead() != 1 {
		t.Fatalf("pull %s head %d", texts(r), r.GetHead())
	}
	if n := tg.Counter(t, "imbench_target_fault_skipped_pushes_total"); n != 1 {
		t.Fatalf("skipped %v", n)
	}
}

// Duplicate: two seqs, two MNs, the same message twice.
func TestFaultDuplicate(t *testing.T) {
	t.Parallel()
	tg, a, b := pair(t, core.Faults{Duplicate: 1, Seed: 1})
	uid := a.mustSend(wire.ConvPrivate, "b", "twice")
	for want := int64(1); want <= 2; want++ {
		if n := b.notify(2 * time.Second); n.GetHead() != want {
			t.Fatalf("MN head %d, want %d", n.GetHead(), want)
		}
	}
	r := b.pull(0, wire.PullNormal)
	if texts(r) != "[a:twice a:twice]" || r.Message[0].GetMessageId() != uid || r.Message[1].GetMessageId() != uid || r.GetHead() != 2 {
		t.Fatalf("pull %s", texts(r))
	}
	if n := tg.Counter(t, "imbench_target_fault_duplicated_pushes_total"); n != 1 {
		t.Fatalf("duplicated %v", n)
	}
}

// Reorder: the sender's next message is filed first.
func TestFaultReorder(t *testing.T) {
	t.Parallel()
	tg, a, b := pair(t, core.Faults{Reorder: 1, ReorderHold: 5 * time.Second, Seed: 1})
	a.mustSend(wire.ConvPrivate, "b", "first")
	b.noNotify(100 * time.Millisecond)
	a.mustSend(wire.ConvPrivate, "b", "second")
	b.notify(2 * time.Second)
	if n := b.notify(2 * time.Second); n.GetHead() != 2 {
		t.Fatalf("MN %v", n)
	}
	if r := b.pull(0, wire.PullNormal); texts(r) != "[a:second a:first]" {
		t.Fatalf("pull %s", texts(r))
	}
	if n := tg.Counter(t, "imbench_target_fault_reordered_pushes_total"); n != 1 {
		t.Fatalf("reordered %v", n)
	}
}

// Delay: neither the MN nor the message before the delay.
func TestFaultDelay(t *testing.T) {
	t.Parallel()
	const delay = 400 * time.Millisecond
	_, a, b := pair(t, core.Faults{Delay: delay})
	sent := time.Now()
	a.mustSend(wire.ConvPrivate, "b", "late")
	if r := b.pull(0, wire.PullNormal); len(r.Message) != 0 || r.GetHead() != 0 {
		t.Fatalf("before the delay: %s head %d", texts(r), r.GetHead())
	}
	if n := b.notify(3 * time.Second); n.GetHead() != 1 || time.Since(sent) < delay-10*time.Millisecond {
		t.Fatalf("MN %v after %v", n, time.Since(sent))
	}
	if r := b.pull(0, wire.PullNormal); texts(r) != "[a:late]" {
		t.Fatalf("after the delay: %s", texts(r))
	}
}

// Lose: acknowledged, filed nowhere, online or not.
func TestFaultLose(t *testing.T) {
	t.Parallel()
	tg, a, b := pair(t, core.Faults{Lose: 1, Seed: 1})
	getToken(t, tg, "c", "c-c", wire.PlatformLinux)
	a.mustSend(wire.ConvPrivate, "b", "gone")
	a.mustSend(wire.ConvPrivate, "c", "gone too")
	b.noNotify(200 * time.Millisecond)
	if r := b.pull(0, wire.PullNormal); len(r.Message) != 0 || r.GetHead() != 0 {
		t.Fatalf("pull %s", texts(r))
	}
	if _, ack := online(t, tg, "c"); ack.GetMsgHead() != 0 {
		t.Fatalf("c's head %d", ack.GetMsgHead())
	}
	if n := tg.Counter(t, "imbench_target_fault_lost_messages_total"); n != 2 {
		t.Fatalf("lost %v", n)
	}
}

// Disconnect: core.Drop closes a Wildfire connection and counts it; what
// comes while it is away is filed for its return.
func TestFaultDisconnect(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	b, _ := online(t, tg, "b")
	if n := tg.Core.Drop(1); n != 1 || !b.closedWithin(2*time.Second) {
		t.Fatalf("dropped %d", n)
	}
	if n := tg.Counter(t, "imbench_target_fault_disconnects_total"); n != 1 {
		t.Fatalf("disconnects %v", n)
	}
	waitFor(t, func() bool { return tg.Counter(t, "imbench_target_wildfire_mqtt_connections") == 0 })
	a, _ := online(t, tg, "a")
	a.mustSend(wire.ConvPrivate, "b", "meanwhile")
	if _, ack := online(t, tg, "b"); ack.GetMsgHead() != 1 {
		t.Fatalf("b's head %d", ack.GetMsgHead())
	}
}

// A connection that ends files what the reorder fault held for it and what
// waits for the delay fault; its client finds them at its next login.
func TestEndedConnectionFiles(t *testing.T) {
	t.Parallel()
	for _, f := range []core.Faults{{Reorder: 1, ReorderHold: time.Hour, Seed: 1}, {Delay: time.Hour}} {
		tg, a, b := pair(t, f)
		a.mustSend(wire.ConvPrivate, "b", "pending")
		b.noNotify(50 * time.Millisecond)
		b.write(wire.Disconnect{})
		if !b.closedWithin(2 * time.Second) {
			t.Fatal("DISCONNECT: still open")
		}
		waitFor(t, func() bool { return tg.Counter(t, "imbench_target_wildfire_mqtt_connections") == 1 })
		b2, ack := online(t, tg, "b")
		if ack.GetMsgHead() != 1 {
			t.Fatalf("%+v: head %d", f, ack.GetMsgHead())
		}
		if r := b2.pull(0, wire.PullNormal); texts(r) != "[a:pending]" {
			t.Fatalf("%+v: pull %s", f, texts(r))
		}
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 3 s")
		}
	}
}
