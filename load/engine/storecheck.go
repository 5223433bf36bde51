package engine

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// StoredReader is a Driver that can read back what its server holds, for
// the store check after the drain: were the deliveries still owed stored
// and not delivered (late), or acknowledged and never stored?
type StoredReader interface {
	// ReadStored logs user u in over a connection of its own and reads what
	// the server holds for it, as the user's own pulls would: every message
	// of convs from the first, or u's whole feed where the server files a
	// copy per user (StoredPerUser). Each message read goes to found, on
	// the connection's goroutine.
	ReadStored(ctx context.Context, u uint32, convs []uint32, found func(verify.Arrival)) error
	// StoredPerUser reports whether the server files each receiver's copy
	// (Wildfire's feeds): then every receiver owed a delivery is read, else
	// one receiver per conversation.
	StoredPerUser() bool
}

// StoreCheck is what the store check found of the deliveries still owed
// when the drain ended.
type StoreCheck struct {
	Owed      int64 // owed deliveries listed (senders and receivers of this process)
	Listed    bool  // false: more were owed than the check lists; the rest stay lost
	Readers   int   // users to read
	Reads     int   // users logged in to read (the rest: the check's time ran out first)
	ReadsFail int   // reads that failed every try or did not finish in time
	Retries   int   // reads tried again after a failure
	Unchecked int64 // listed deliveries no read covered: neither late nor lost
	Split     verify.HeldSplit
	Seconds   float64
	FirstErr  string
}

// CheckStore reads back, as receivers of the owed deliveries, what the
// server holds, and splits those deliveries into late (the server holds
// the message) and never stored. It reads at most parallel users at a
// time and stops reading when timeout has passed: what it did not read
// stays lost, counted as unchecked.
func CheckStore(ctx context.Context, p *plan.Plan, runID string, r StoredReader, owed verify.OwedSet, timeout time.Duration, parallel int) StoreCheck {
	began := time.Now()
	res := StoreCheck{Listed: owed.Complete}
	for k := range owed.Listed {
		res.Owed += owed.Listed[k]
	}
	perUser := r.StoredPerUser()
	// Who reads what: each owed receiver its conversations (per user), or
	// the lowest owed receiver of each conversation.
	reads := map[uint32][]uint32{}
	for conv, msgs := range owed.ByConv {
		if perUser {
			seen := map[uint32]bool{}
			for _, m := range msgs {
				for _, u := range m.Receivers {
					if !seen[u] {
						seen[u] = true
						reads[u] = append(reads[u], conv)
					}
				}
			}
			continue
		}
		reader := msgs[0].Receivers[0]
		for _, m := range msgs {
			for _, u := range m.Receivers {
				reader = min(reader, u)
			}
		}
		reads[reader] = append(reads[reader], conv)
	}
	readers := make([]uint32, 0, len(reads))
	for u := range reads {
		readers = append(readers, u)
	}
	slices.Sort(readers)
	res.Readers = len(readers)

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var (
		mu    sync.Mutex
		held  = map[uint32]map[verify.MsgKey]bool{} // by reader
		done  = map[uint32]bool{}                   // readers whose read finished
		first error
		wg    sync.WaitGroup
		sem   = make(chan struct{}, max(parallel, 1))
	)
	tag := verify.RunTag(runID)
	for _, u := range readers {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			got, tries, err := readRetrying(ctx, r, u, reads[u], tag)
			mu.Lock()
			defer mu.Unlock()
			res.Reads++
			res.Retries += tries - 1
			if err != nil {
				res.ReadsFail++
				if first == nil {
					first = err
				}
				return
			}
			held[u], done[u] = got, true
		}()
	}
	wg.Wait()
	if first != nil {
		res.FirstErr = first.Error()
	} else if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && len(done) < len(readers) {
		res.FirstErr = "the check's time ran out (IM_STORE_CHECK)"
	}
	// A conversation's store answers for every receiver where it is
	// shared; a feed only for its own user.
	readerOf := map[uint32]uint32{}
	if !perUser {
		for u, convs := range reads {
			for _, c := range convs {
				readerOf[c] = u
			}
		}
	}
	whose := func(conv, rcv uint32) (uint32, bool) {
		if perUser {
			return rcv, done[rcv]
		}
		u, ok := readerOf[conv]
		return u, ok && done[u]
	}
	res.Split = owed.Split(p, func(conv, rcv uint32) bool {
		_, ok := whose(conv, rcv)
		return ok
	}, func(k verify.MsgKey, rcv uint32) bool {
		u, _ := whose(k.Conv, rcv)
		return held[u][k]
	})
	res.Unchecked = verify.Owed(res.Split.Unchecked)
	res.Seconds = time.Since(began).Seconds()
	return res
}

// ReadTries is how often the store check tries a user's read: a server
// behind answers some reads and not others (a real Wildfire 1.2.4 behind
// on its sends did), and a read tried again may pass.
const ReadTries = 3

// readRetrying reads what the server holds for u, trying again after a
// failure while ctx lasts: the messages of this run it found, and how
// many tries it took.
func readRetrying(ctx context.Context, r StoredReader, u uint32, convs []uint32, tag string) (map[verify.MsgKey]bool, int, error) {
	var err error
	for try := 1; ; try++ {
		got := map[verify.MsgKey]bool{}
		var mu sync.Mutex
		err = r.ReadStored(ctx, u, convs, func(a verify.Arrival) {
			b, err := verify.ParseBody(a.Text)
			if err != nil || string(b.Run) != tag {
				return
			}
			mu.Lock()
			got[verify.MsgKey{Conv: b.Conv, Sender: b.Sender, N: b.N}] = true
			mu.Unlock()
		})
		if err == nil {
			return got, try, nil
		}
		if try == ReadTries || ctx.Err() != nil {
			return nil, try, err
		}
		select {
		case <-time.After(retryPause):
		case <-ctx.Done():
			return nil, try, err
		}
	}
}

// retryPause is the wait before a failed read is tried again.
const retryPause = 500 * time.Millisecond

// ReadBySeq is ReadStored for a server that numbers messages per
// conversation: log u in with its own handler, ask the newest seq of each
// of its conversations (MaxSeqs) and pull convs from seq 1 to it.
func ReadBySeq(ctx context.Context, d Driver, u uint32, convs []uint32, found func(verify.Arrival)) error {
	c, err := d.Connect(ctx, u, Reader(found))
	if err != nil {
		return err
	}
	defer c.Close(func(bool) {})
	wait := func(start func(done func(error)) error) error { return Await(ctx, start) }
	var maxSeqs map[uint32]uint64
	if err := wait(func(done func(error)) error {
		return c.MaxSeqs(func(m map[uint32]uint64, err error) { maxSeqs = m; done(err) })
	}); err != nil {
		return err
	}
	seqs := map[uint32][]uint64{}
	for _, cv := range convs {
		for s := uint64(1); s <= maxSeqs[cv]; s++ {
			seqs[cv] = append(seqs[cv], s)
		}
	}
	return wait(func(done func(error)) error { return c.Pull(seqs, false, done) })
}

// Reader is a store check's Handler: what arrives goes to found, nothing
// counts.
func Reader(found func(verify.Arrival)) Handler { return &reader{found: found} }

type reader struct{ found func(verify.Arrival) }

func (h *reader) Arrive(a verify.Arrival)  { h.found(a) }
func (h *reader) Closed(Conn, error, bool) {}

// Await starts a request that answers through done and waits for the
// answer, or for ctx to end.
func Await(ctx context.Context, start func(done func(error)) error) error {
	ch := make(chan error, 1)
	if err := start(func(err error) { ch <- err }); err != nil {
		return err
	}
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
