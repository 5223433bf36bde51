package runner

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/imbench/imbench/internal/summary"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/verify"
)

// defaultStoreCheck bounds the store check: a minute reads back a few
// thousand users' conversations on a server that answers, and stops on one
// that does not.
const defaultStoreCheck = time.Minute

// maxOwedListed is the most owed deliveries the check lists; beyond, a
// run lost so much that the split would not change its verdict.
const maxOwedListed = 5_000_000

// storeCheck is what the store check did, or why it did not run.
type storeCheck struct {
	res     engine.StoreCheck
	skipped string
}

// checkStore runs once the run's connections are closed, when deliveries
// are still owed: it asks the server, as their receivers, whether it holds
// the messages, and moves those it holds from lost to late. It returns the
// reconciliation as amended.
func (r *Run) checkStore(ctx context.Context, stderr io.Writer) verify.Reconciliation {
	rec := r.reconciled()
	owedNow := verify.Owed(rec.Lost)
	if owedNow <= 0 {
		return rec
	}
	sc := &storeCheck{}
	defer func() {
		r.mu.Lock()
		r.stored = sc
		r.mu.Unlock()
	}()
	sr, ok := r.Driver.(engine.StoredReader)
	switch {
	case r.Opts.StoreCheck <= 0:
		sc.skipped = "IM_STORE_CHECK=off"
		return r.uncheckedWithoutSync(rec, sc)
	case !ok:
		sc.skipped = r.Target.System + " offers no read of what it stored"
		return r.uncheckedWithoutSync(rec, sc)
	case ctx.Err() != nil:
		sc.skipped = "the run was interrupted"
		return rec
	}
	in, out := r.boxes()
	owed := verify.ListOwed(r.Plan, in, out, maxOwedListed)
	if fmt.Sprint(owed.Listed) == fmt.Sprint([verify.Kinds]int64{}) {
		sc.skipped = "the deliveries owed were of senders or receivers in other processes"
		return rec
	}
	fmt.Fprintf(stderr, "imbench: %d deliveries still owed after the drain: reading back what the server holds (at most %s, IM_STORE_CHECK)\n",
		owedNow, r.Opts.StoreCheck)
	sc.res = engine.CheckStore(ctx, r.Plan, r.ID, sr, owed, r.Opts.StoreCheck, 16)
	r.mu.Lock()
	defer r.mu.Unlock()
	rec.Apply(sc.res.Split)
	*r.reconcile = rec
	return rec
}

// boxes gathers every local user's inbox and outbox.
func (r *Run) boxes() (map[uint32]*verify.Inbox, map[uint32]*verify.Outbox) {
	in, out := map[uint32]*verify.Inbox{}, map[uint32]*verify.Outbox{}
	for _, s := range r.Shared.Sessions() {
		for _, u := range s.Users() {
			in[u.Index()], out[u.Index()] = u.Inbox(), u.Outbox()
		}
	}
	return in, out
}

// storeCheckSummary is summary.json's account of the check.
func (r *Run) storeCheckSummary() *summary.StoreCheckSummary {
	r.mu.Lock()
	sc := r.stored
	r.mu.Unlock()
	if sc == nil {
		return &summary.StoreCheckSummary{Skipped: summary.NothingOwed}
	}
	if sc.skipped != "" {
		return &summary.StoreCheckSummary{Skipped: sc.skipped}
	}
	c := sc.res
	return &summary.StoreCheckSummary{Ran: true, Owed: c.Owed, NotListed: !c.Listed, Readers: c.Readers, Reads: c.Reads, ReadsFailed: c.ReadsFail, Retries: c.Retries, Tries: engine.ReadTries,
		Unchecked: c.Unchecked, MessagesHeld: c.Split.MessagesHeld, MessagesNeverStored: c.Split.MessagesNeverStored,
		Seconds: c.Seconds, Error: c.FirstErr}
}

// uncheckedWithoutSync: with neither the drain's last sync
// (IM_DRAIN_SYNC=off) nor a store check, nothing read back what the server
// held, so what is still owed may be stored and late as well as lost: it is
// unchecked. With the sync, what it did not bring is not stored: lost.
func (r *Run) uncheckedWithoutSync(rec verify.Reconciliation, sc *storeCheck) verify.Reconciliation {
	if !r.Shared.Opts.NoDrainSync {
		return rec
	}
	sc.skipped += ", and IM_DRAIN_SYNC=off: nothing read back what the server held"
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range rec.Lost {
		rec.Unchecked[k] += rec.Lost[k]
		rec.Lost[k] = 0
	}
	*r.reconcile = rec
	return rec
}
