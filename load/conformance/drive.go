package conformance

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/latency"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// outcome is what a run counted.
type outcome struct {
	totals  verify.Totals
	rec     verify.Reconciliation
	check   *engine.StoreCheck // the store check, when the run asked for it
	e2e     *latency.Histogram
	peak    int64
	outages []engine.Outage
}

// build makes a plan from a workload's classes, with ids of its own.
func build(t testing.TB, prefix string, classes ...string) *plan.Plan {
	t.Helper()
	return buildPopulations(t, prefix, "", classes...)
}

// buildPopulations is build with the workload's populations (JSON; "":
// none).
func buildPopulations(t testing.TB, prefix, populations string, classes ...string) *plan.Plan {
	t.Helper()
	w := plan.Workload{Name: "conformance/" + prefix, Prefix: prefix + "_", BodySize: 120}
	if populations != "" {
		if err := json.Unmarshal([]byte(populations), &w.Populations); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range classes {
		w.Classes = append(w.Classes, []byte(c))
	}
	p, err := w.Build()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// driver opens the protocol for the server's target.
func driver(t testing.TB, tgt engine.Target, p *plan.Plan) engine.Driver {
	t.Helper()
	return driverReading(t, tgt, p, 45*time.Second)
}

// driverReading is driver whose connections count a server silent for
// readTimeout as gone.
func driverReading(t testing.TB, tgt engine.Target, p *plan.Plan, readTimeout time.Duration) engine.Driver {
	t.Helper()
	spec, proto, err := tgt.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.CanCarry(p); err != nil {
		t.Skip(err)
	}
	d, err := proto.Driver(p, readTimeout)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// run drives a plan the way a scenario does: every VU logs in its
// immediate users, all wait, send (its timeline of timed logins and spells
// away beside), wait, log in the late users, drain.
func run(t testing.TB, tgt engine.Target, p *plan.Plan, vus int, opts engine.Options) outcome {
	t.Helper()
	return runThen(t, tgt, p, vus, opts, nil)
}

// runThen is run with online called once, in its own goroutine, when every
// user is online and sending is about to begin.
func runThen(t testing.TB, tgt engine.Target, p *plan.Plan, vus int, opts engine.Options, online func()) outcome {
	t.Helper()
	return runWith(t, tgt, p, vus, opts, online, false)
}

// runWith is runThen, and with loginsMayFail users that never get online
// are the test's to judge, not an error.
func runWith(t testing.TB, tgt engine.Target, p *plan.Plan, vus int, opts engine.Options, online func(), loginsMayFail bool) outcome {
	t.Helper()
	return runChecked(t, tgt, p, vus, opts, online, loginsMayFail, false)
}

// runChecked is runWith, then with check the store check the runner makes
// after the drain, applied to the reconciliation.
func runChecked(t testing.TB, tgt engine.Target, p *plan.Plan, vus int, opts engine.Options, online func(), loginsMayFail, check bool) outcome {
	t.Helper()
	return runHooked(t, tgt, p, vus, opts, hooks{online: online}, loginsMayFail, check)
}

// hooks are called at the run's turns: online in its own goroutine as
// sending is about to begin; sent and drained once, every VU waiting for
// them, when every VU has sent (before the late logins) and drained
// (before the connections close and the store check).
type hooks struct {
	online, sent, drained func()
}

// runHooked is runChecked with every hook.
func runHooked(t testing.TB, tgt engine.Target, p *plan.Plan, vus int, opts engine.Options, hk hooks, loginsMayFail, check bool) outcome {
	t.Helper()
	online := hk.online
	var once, sentOnce, drainedOnce sync.Once
	at := func(o *sync.Once, f func()) {
		if f != nil {
			o.Do(f)
		}
	}
	withDefaults := opts
	withDefaults.Defaults()
	d := driverReading(t, tgt, p, withDefaults.ReadTimeout())
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
			if r := s.Login(plan.Immediate); r.Failed > 0 && !loginsMayFail {
				t.Errorf("immediate logins failed: %v", r.FirstErr)
			}
			start, err := sh.Barrier(ctx, "online", vus)
			if err != nil {
				t.Error(err)
				return
			}
			if online != nil {
				once.Do(func() { go online() })
			}
			timed := make(chan struct{})
			go func() { // the plan's timed logins and spells away, as the runner's worker runs them
				defer close(timed)
				s.Timeline(start.Add(50 * time.Millisecond))
			}()
			s.Send(start.Add(50*time.Millisecond), 30*time.Second)
			<-timed
			if _, err := sh.Barrier(ctx, "sent", vus); err != nil {
				t.Error(err)
				return
			}
			at(&sentOnce, hk.sent)
			if r := s.Login(plan.Late); r.Failed > 0 && !loginsMayFail {
				t.Errorf("late logins failed: %v", r.FirstErr)
			}
			sh.Barrier(ctx, "late", vus)
			s.Drain()
			sh.Barrier(ctx, "drained", vus)
			at(&drainedOnce, hk.drained)
			s.Close()
		}()
	}
	wg.Wait()
	out := outcome{totals: sh.Totals(), e2e: latency.NewHistogram(), peak: sh.Peak()}
	out.outages, _ = sh.Outages()
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
	if check && verify.Owed(out.rec.Lost) > 0 {
		sr, ok := d.(engine.StoredReader)
		if !ok {
			t.Fatalf("%T reads nothing back for the store check", d)
		}
		c := engine.CheckStore(ctx, p, sh.RunID, sr, verify.ListOwed(p, in, ob, 1_000_000), 30*time.Second, 16)
		out.rec.Apply(c.Split)
		out.check = &c
	}
	if sh.Online() != 0 {
		t.Errorf("%d users still online after close", sh.Online())
	}
	return out
}

func (o outcome) received() int64 { return verify.Sum(o.totals.Pushed) + verify.Sum(o.totals.Pulled) }
