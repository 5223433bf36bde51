package conformance

import (
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/verify"
)

// Six friends in three groups of all six and every pair of them: each
// connection carries 8 conversations, every friend writing in each.
var friends = []string{
	`{"kind":"groups","groups":3,"from":"friends","members":6,"senders":6,"totalRate":300,"messages":5}`,
	`{"kind":"pairs","pairs":15,"from":"friends","totalRate":150,"messages":5}`,
}

// One user in several groups and pairs at once: what the target reorders,
// duplicates and loses is counted exactly, and the population's and the
// classes' figures add up to the run's.
func testPopulations(t *testing.T, h Harness) {
	srv := h.Start(t, Faults{Reorder: 0.2, ReorderHold: 500 * time.Millisecond, Seed: 31})
	o := run(t, srv.Target(), buildPopulations(t, "popre", `{"friends":{"users":6}}`, friends...), 2, engine.Options{})
	re := int64(srv.Counter(t, ReorderedCounter))
	pop := o.totals.ByPopulation
	if re == 0 || verify.Sum(o.totals.OutOfOrder) != re || verify.Sum(o.rec.Lost) != 0 || len(pop) != 1 || pop[0].OutOfOrder != re {
		t.Fatalf("target reordered %d; verifier out of order %v, by population %+v, lost %v", re, o.totals.OutOfOrder, pop, o.rec.Lost)
	}
	checkFigures(t, o, 90*5+75)

	srv = h.Start(t, Faults{Lose: 0.05, Duplicate: 0.05, Seed: 32})
	o = run(t, srv.Target(), buildPopulations(t, "poplose", `{"friends":{"users":6}}`, friends...), 2, engine.Options{})
	lost, dup := int64(srv.Counter(t, LostCounter)), int64(srv.Counter(t, DuplicatedCounter))
	pop = o.totals.ByPopulation
	if lost == 0 || dup == 0 || verify.Sum(o.rec.Lost) != lost || verify.Sum(o.totals.Duplicates) != dup || pop[0].Duplicates != dup ||
		pop[0].Received != pop[0].Expected-lost {
		t.Fatalf("target lost %d duplicated %d; verifier lost %v duplicates %v, by population %+v", lost, dup, o.rec.Lost, o.totals.Duplicates, pop)
	}
	checkFigures(t, o, 0)
}

// checkFigures holds the population's and the classes' counts to the
// run's: the same expected, received, duplicates and out of order, each
// arrival counted once by its class and once by its receiver's
// population; want, where given, is the deliveries expected.
func checkFigures(t *testing.T, o outcome, want int64) {
	t.Helper()
	var cls verify.ClassTotals
	for _, c := range o.totals.ByClass {
		cls.Expected += c.Expected
		cls.Received += c.Received
		cls.Duplicates += c.Duplicates
		cls.OutOfOrder += c.OutOfOrder
	}
	pop := o.totals.ByPopulation[0]
	run := verify.ClassTotals{Expected: verify.Sum(o.totals.Expected), Received: o.received(),
		Duplicates: verify.Sum(o.totals.Duplicates), OutOfOrder: verify.Sum(o.totals.OutOfOrder)}
	if cls != run || pop != run || (want > 0 && run.Expected != want) {
		t.Fatalf("run %+v, classes %+v, population %+v (want %d expected)", run, cls, pop, want)
	}
}
