package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/latency"
	"github.com/imbench/imbench/k6/im/engine"
	"github.com/imbench/imbench/k6/im/openim"
	"github.com/imbench/imbench/k6/im/plan"
	"github.com/imbench/imbench/k6/im/verify"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/openim"
)

// smallPlan is the seed's Test 1 shape at a size a unit test can afford,
// sent fast enough to finish in seconds.
func smallPlan(t *testing.T, prefix string) *plan.Plan {
	t.Helper()
	p, err := plan.Integration{Name: "openim/test1", Users: 24, SuperUsers: 3, LargeGroups: 2, CommonGroups: 2,
		CommonGroupMembers: 5, LoginRatio: 0.5, SingleMessages: 4, GroupMessages: 4, Rate: 800, BodySize: 120,
		Prefix: prefix}.Build()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type outcome struct {
	totals verify.Totals
	rec    verify.Reconciliation
	e2e    *latency.Histogram
	peak   int64
}

// run drives a plan the way the k6 scenario does: every VU logs in its
// immediate users, all wait, send, wait, log in the late users, drain.
func run(t *testing.T, tg *reftest.Target, p *plan.Plan, vus int, opts engine.Options, cfg func(*openim.Config)) outcome {
	t.Helper()
	c := openim.Config{APIURL: tg.APIURL, WSURL: tg.WSURL, Secret: tg.Secret, Gzip: true}
	if cfg != nil {
		cfg(&c)
	}
	d, err := openim.New(c, p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := d.Setup(ctx, func(string) {}); err != nil {
		t.Fatal(err)
	}
	if opts.DrainQuiet == 0 {
		opts.DrainQuiet = time.Second
	}
	sh := engine.NewShared("run-"+p.Prefix, p, d, opts)
	sh.Logf = t.Logf
	var wg sync.WaitGroup
	for vu := 1; vu <= vus; vu++ {
		lo, hi, _ := p.UserRange(vu, vus)
		s := sh.NewSession(ctx, lo, hi)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := s.Login(plan.Immediate); r.Failed > 0 {
				t.Errorf("immediate logins failed: %v", r.FirstErr)
			}
			start, err := sh.Barrier(ctx, "online", vus)
			if err != nil {
				t.Error(err)
				return
			}
			s.Send(start.Add(50*time.Millisecond), 30*time.Second)
			if _, err := sh.Barrier(ctx, "sent", vus); err != nil {
				t.Error(err)
				return
			}
			if r := s.Login(plan.Late); r.Failed > 0 {
				t.Errorf("late logins failed: %v", r.FirstErr)
			}
			sh.Barrier(ctx, "late", vus)
			s.Drain()
			sh.Barrier(ctx, "drained", vus)
			s.Close()
		}()
	}
	wg.Wait()
	out := outcome{totals: sh.Totals(), e2e: latency.NewHistogram(), peak: sh.Peak()}
	in, ob := map[uint32]*verify.Inbox{}, map[uint32]*verify.Outbox{}
	for _, s := range sh.Sessions() {
		for _, u := range s.Users() {
			in[u.Index()], ob[u.Index()] = u.Inbox(), u.Outbox()
		}
		for k := 0; k < verify.Kinds; k++ {
			s.Tally.E2E[k].MergeInto(out.e2e)
		}
	}
	out.rec = verify.Reconcile(p, out.totals.Expected, in, ob, 10)
	if sh.Online() != 0 {
		t.Errorf("%d users still online after close", sh.Online())
	}
	return out
}

func TestCleanRunDeliversEverything(t *testing.T) {
	for _, env := range []wire.Envelope{wire.Gob, wire.JSON} {
		t.Run(string(env), func(t *testing.T) {
			tg := reftest.Start(t, core.Faults{})
			p := smallPlan(t, "clean"+string(env))
			o := run(t, tg, p, 3, engine.Options{}, func(c *openim.Config) { c.Envelope = env })
			tot := o.totals
			exp := verify.Sum(tot.Expected)
			got := verify.Sum(tot.Pushed) + verify.Sum(tot.Pulled)
			if exp == 0 || exp != got || verify.Sum(o.rec.Lost) != 0 {
				t.Fatalf("expected %d received %d lost %v", exp, got, o.rec.Lost)
			}
			if verify.Sum(tot.Sent) != p.Planned() || verify.Sum(tot.Acked) != p.Planned() {
				t.Fatalf("sent %v acked %v of %d", tot.Sent, tot.Acked, p.Planned())
			}
			if verify.Sum(tot.Duplicates)+verify.Sum(tot.OutOfOrder)+tot.Corrupt+tot.Foreign != 0 {
				t.Fatalf("clean run saw dup %v ooo %v corrupt %d foreign %d", tot.Duplicates, tot.OutOfOrder, tot.Corrupt, tot.Foreign)
			}
			// Late users got everything by pull at login, nobody else pulled.
			if verify.Sum(tot.GapPulled) != 0 || verify.Sum(tot.Pulled) == 0 {
				t.Fatalf("pulled %v gap-pulled %v", tot.Pulled, tot.GapPulled)
			}
			if tot.LoginsImmediate != int64(p.Count(plan.Immediate)) || tot.LoginsLate != int64(p.Count(plan.Late)) {
				t.Fatalf("logins %d/%d", tot.LoginsImmediate, tot.LoginsLate)
			}
			if o.peak != int64(p.Users) {
				t.Fatalf("online peak %d, want %d", o.peak, p.Users)
			}
			if o.e2e.Count() != verify.Sum(tot.Pushed) {
				t.Fatalf("latency samples %d for %d pushed deliveries", o.e2e.Count(), verify.Sum(tot.Pushed))
			}
		})
	}
}

func TestLoseIsCountedAsLostExactly(t *testing.T) {
	tg := reftest.Start(t, core.Faults{Lose: 0.05, Seed: 7})
	o := run(t, tg, smallPlan(t, "lose"), 2, engine.Options{}, nil)
	lost := verify.Sum(o.rec.Lost)
	want := int64(tg.Counter(t, "imbench_target_fault_lost_deliveries_total"))
	if want == 0 || lost != want {
		t.Fatalf("verifier lost %d, target lost %d", lost, want)
	}
	if len(o.rec.Sample) == 0 {
		t.Fatal("no lost deliveries named")
	}
}

func TestSkippedPushesArePulledNotLost(t *testing.T) {
	tg := reftest.Start(t, core.Faults{SkipPush: 0.05, Seed: 8})
	o := run(t, tg, smallPlan(t, "skip"), 2, engine.Options{}, nil)
	skipped := int64(tg.Counter(t, "imbench_target_fault_skipped_pushes_total"))
	if skipped == 0 || verify.Sum(o.rec.Lost) != 0 || verify.Sum(o.totals.GapPulled) != skipped {
		t.Fatalf("skipped %d, recovered by pull %d, lost %v", skipped, verify.Sum(o.totals.GapPulled), o.rec.Lost)
	}
}

func TestDuplicatesAndReorderAreCountedExactly(t *testing.T) {
	tg := reftest.Start(t, core.Faults{Duplicate: 0.05, Seed: 9})
	o := run(t, tg, smallPlan(t, "dup"), 2, engine.Options{}, nil)
	dup := int64(tg.Counter(t, "imbench_target_fault_duplicated_pushes_total"))
	if dup == 0 || verify.Sum(o.totals.Duplicates) != dup || verify.Sum(o.rec.Lost) != 0 {
		t.Fatalf("target duplicated %d, verifier counted %v, lost %v", dup, o.totals.Duplicates, o.rec.Lost)
	}

	// The hold must end before the drain's quiet period, or the final sync
	// pulls a still-held push and its late arrival becomes a duplicate.
	tg = reftest.Start(t, core.Faults{Reorder: 0.2, ReorderHold: 500 * time.Millisecond, Seed: 10})
	o = run(t, tg, smallPlan(t, "reorder"), 2, engine.Options{}, nil)
	re := int64(tg.Counter(t, "imbench_target_fault_reordered_pushes_total"))
	if re == 0 || verify.Sum(o.totals.OutOfOrder) != re || verify.Sum(o.rec.Lost) != 0 ||
		verify.Sum(o.totals.GapPulled) != 0 || verify.Sum(o.totals.Duplicates) != 0 {
		t.Fatalf("target reordered %d, verifier counted %v out of order, gap pulls %v, duplicates %v, lost %v",
			re, o.totals.OutOfOrder, o.totals.GapPulled, o.totals.Duplicates, o.rec.Lost)
	}
}

func TestDelayShowsInLatency(t *testing.T) {
	tg := reftest.Start(t, core.Faults{Delay: 50 * time.Millisecond})
	o := run(t, tg, smallPlan(t, "delay"), 1, engine.Options{}, nil)
	if p50 := o.e2e.QuantileMs(0.5); p50 <= 50 {
		t.Fatalf("p50 %v ms with a 50 ms delay", p50)
	}
}

func TestDisconnectsAreCountedAndRecovered(t *testing.T) {
	tg := reftest.Start(t, core.Faults{DisconnectEvery: 150 * time.Millisecond, DisconnectCount: 2, Seed: 11})
	stop := make(chan struct{})
	go func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { <-stop; cancel() }()
		tg.Core.RunDisconnects(ctx)
	}()
	p := smallPlan(t, "disc")
	var o outcome
	func() {
		defer close(stop)
		o = run(t, tg, p, 2, engine.Options{ReconnectDelay: 100 * time.Millisecond}, nil)
	}()
	drops := int64(tg.Counter(t, "imbench_target_fault_disconnects_total"))
	if drops == 0 || o.totals.Disconnects != drops {
		t.Fatalf("target dropped %d connections, verifier counted %d", drops, o.totals.Disconnects)
	}
	// Drops while the sessions close are not followed by a reconnect.
	if o.totals.Reconnects == 0 || o.totals.Reconnects > drops {
		t.Fatalf("%d reconnects for %d drops", o.totals.Reconnects, drops)
	}
	// Messages in flight when a connection dropped may fail; what was acked
	// must all arrive.
	if verify.Sum(o.rec.Lost) != 0 {
		t.Fatalf("lost %v after reconnects; sample %+v", o.rec.Lost, o.rec.Sample)
	}
}

// Heartbeats keep idle users online past the server's read deadline; with
// heartbeats slower than the deadline the server drops them and both sides
// count it. The deadline is 1 s here instead of OpenIM's 30 s.
func TestHeartbeatsBeatTheReadDeadline(t *testing.T) {
	for _, c := range []struct {
		name  string
		ping  time.Duration
		drops bool
	}{{"pings every 300ms", 300 * time.Millisecond, false}, {"pings every 5s", 5 * time.Second, true}} {
		t.Run(c.name, func(t *testing.T) {
			tg := reftest.StartWith(t, core.Faults{}, time.Second)
			p := smallPlan(t, "hb")
			d, err := openim.New(openim.Config{APIURL: tg.APIURL, WSURL: tg.WSURL, Secret: tg.Secret}, p)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := d.Setup(ctx, func(string) {}); err != nil {
				t.Fatal(err)
			}
			sh := engine.NewShared("hb", p, d, engine.Options{PingInterval: c.ping, ReconnectMax: 1, ReconnectDelay: 10 * time.Second})
			s := sh.NewSession(ctx, 0, uint32(p.Users))
			if r := s.Login(plan.Immediate); r.Failed != 0 {
				t.Fatal(r.FirstErr)
			}
			time.Sleep(2500 * time.Millisecond)
			timeouts := int64(tg.Counter(t, "imbench_target_heartbeat_timeouts_total"))
			disc := s.Tally.Disconnects.Load()
			s.Close()
			if c.drops && (timeouts == 0 || disc != timeouts) {
				t.Fatalf("slow pings: server timed out %d connections, client saw %d disconnects", timeouts, disc)
			}
			if !c.drops && (timeouts != 0 || disc != 0 || s.Tally.HeartbeatsSent.Load() == 0) {
				t.Fatalf("pings every %s: %d server timeouts, %d disconnects, %d pings", c.ping, timeouts, disc, s.Tally.HeartbeatsSent.Load())
			}
		})
	}
}

// Users spread over three gateway processes' worth of links: messages cross
// from one gateway through the core to another, and still arrive exactly;
// faults injected in the core come out as exactly.
func TestGatewaysSpreadOverProcesses(t *testing.T) {
	tg := reftest.StartCluster(t, core.Faults{}, 3)
	o := run(t, tg, smallPlan(t, "spread"), 2, engine.Options{}, nil)
	if exp := verify.Sum(o.totals.Expected); exp == 0 || verify.Sum(o.rec.Lost) != 0 ||
		exp != verify.Sum(o.totals.Pushed)+verify.Sum(o.totals.Pulled) {
		t.Fatalf("across gateways: expected %d, pushed %v pulled %v, lost %v", exp, o.totals.Pushed, o.totals.Pulled, o.rec.Lost)
	}
	tg = reftest.StartCluster(t, core.Faults{Duplicate: 0.05, Seed: 12}, 3)
	o = run(t, tg, smallPlan(t, "spreaddup"), 2, engine.Options{}, nil)
	dup := int64(tg.Counter(t, "imbench_target_fault_duplicated_pushes_total"))
	if dup == 0 || verify.Sum(o.totals.Duplicates) != dup {
		t.Fatalf("duplicates across gateways: target %d, verifier %v", dup, o.totals.Duplicates)
	}
}
