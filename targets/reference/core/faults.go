package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Faults the target injects on purpose, so that tests can prove the verifier
// counts exactly what went wrong. Rates are probabilities per message (Lose,
// AckLate) or per push to a recipient other than the sender (the rest).
type Faults struct {
	Lose        float64       // acknowledge, then neither store nor push: a real loss
	SkipPush    float64       // store but do not push: a client that watches seqs pulls it
	Duplicate   float64       // push twice
	Reorder     float64       // hold a push until the sender's next one in that conversation overtakes it
	ReorderHold time.Duration // how long a held push waits for that next message
	ReorderLate time.Duration // write a reordered push this long after the one that overtook it (0: right after; past a client's gap grace it meets the client's pull, as a real WuKongIM's late pushes do, wukongim.md §14)
	Delay       time.Duration // added before every push
	// Store and push, but answer the sender this long late: past the
	// client's ack timeout, the send looks failed though it was delivered
	// (a real Wildfire overloaded by chatroom1k did so). Only that answer
	// waits (Message.AckLate): the connection's other requests are served.
	AckLate   float64
	AckLateBy time.Duration
	// Acknowledge each message at once and store a conversation's messages
	// in batches, every BatchWindow (100 ms when 0): a batch of more than
	// BatchDrop is dropped whole, never stored nor pushed (open-im-server
	// v3.8's msgtransfer over 100, batch.go). 0: off.
	BatchDrop   int
	BatchWindow time.Duration
	// Capacity: serve at most this many messages a second on one core,
	// queueing the rest (capacity.go). 0: as fast as the machine goes.
	Capacity float64
	// StallPulls: the first this many pulls that find messages are never
	// answered, as a real Wildfire 1.2.4 behind on its sends left most of
	// the store check's pulls (its feed reads after the run) unanswered
	// past the client's timeout. Pulls that find nothing are served.
	StallPulls      int
	DisconnectEvery time.Duration // every so often, drop connections
	DisconnectCount int           // how many at a time
	Seed            uint64
}

// Validate rejects impossible settings.
func (f *Faults) Validate() error {
	var errs []error
	for name, r := range map[string]float64{"lose": f.Lose, "skip-push": f.SkipPush, "duplicate": f.Duplicate, "reorder": f.Reorder, "ack-late": f.AckLate} {
		if r < 0 || r > 1 {
			errs = append(errs, fmt.Errorf("fault %s rate %v is not within 0..1", name, r))
		}
	}
	if f.Delay < 0 || f.ReorderHold < 0 || f.ReorderLate < 0 || f.AckLateBy < 0 || f.DisconnectEvery < 0 || f.DisconnectCount < 0 {
		errs = append(errs, errors.New("fault durations and counts must not be negative"))
	}
	if f.ReorderHold == 0 {
		f.ReorderHold = time.Second
	}
	if f.AckLate > 0 && f.AckLateBy == 0 {
		errs = append(errs, errors.New("fault ack-late needs ack-late-by: how late the answer comes"))
	}
	if f.Capacity < 0 {
		errs = append(errs, errors.New("fault capacity must not be negative"))
	}
	if f.StallPulls < 0 {
		errs = append(errs, errors.New("fault stall-pulls must not be negative"))
	}
	if f.BatchDrop < 0 || f.BatchWindow < 0 {
		errs = append(errs, errors.New("fault batch-drop and batch-window must not be negative"))
	}
	if f.BatchDrop > 0 && f.BatchWindow == 0 {
		f.BatchWindow = 100 * time.Millisecond
	}
	if f.DisconnectEvery > 0 && f.DisconnectCount == 0 {
		f.DisconnectCount = 1
	}
	return errors.Join(errs...)
}

// Active reports whether any fault is on.
func (f Faults) Active() bool {
	return f.Lose > 0 || f.SkipPush > 0 || f.Duplicate > 0 || f.Reorder > 0 || f.Delay > 0 || f.DisconnectEvery > 0 || f.AckLate > 0 || f.BatchDrop > 0 || f.Capacity > 0 || f.StallPulls > 0
}

type faultState struct {
	cfg        Faults
	mu         sync.Mutex
	rng        *rand.Rand
	stalled    int         // pulls left unanswered (StallPulls)
	stallLimit int         // how many may be: StallPulls, raised by StallNextPulls
	stallArmed atomic.Bool // a stall may come: pulls without the fault take no lock
}

func newFaultState(cfg Faults) *faultState {
	seed := cfg.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	f := &faultState{cfg: cfg, stallLimit: cfg.StallPulls, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	f.stallArmed.Store(cfg.StallPulls > 0)
	return f
}

func (f *faultState) roll(p float64) bool {
	if p <= 0 {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rng.Float64() < p
}

func (f *faultState) lose() bool      { return f.roll(f.cfg.Lose) }
func (f *faultState) skipPush() bool  { return f.roll(f.cfg.SkipPush) }
func (f *faultState) duplicate() bool { return f.roll(f.cfg.Duplicate) }
func (f *faultState) reorder() bool   { return f.roll(f.cfg.Reorder) }
func (f *faultState) ackLate() bool   { return f.roll(f.cfg.AckLate) }

// StallPull reports whether a pull that found found messages goes
// unanswered (the stall-pulls fault); a front end that hears yes writes
// nothing back.
func (c *Core) StallPull(found int) bool {
	f := c.faults
	if found == 0 || !f.stallArmed.Load() {
		return false
	}
	f.mu.Lock()
	stall := f.stalled < f.stallLimit
	if stall {
		f.stalled++
	}
	f.mu.Unlock()
	if stall {
		c.metrics.faultStalls.Inc()
	}
	return stall
}

// StallNextPulls leaves the next n pulls that find messages unanswered, from
// now: a test arms it once a run's own pulls are over, so that only its
// store check's reads meet it.
func (c *Core) StallNextPulls(n int) {
	f := c.faults
	f.mu.Lock()
	f.stallLimit = f.stalled + n
	f.mu.Unlock()
	f.stallArmed.Store(true)
}

// RunDisconnects drops DisconnectCount random connections every
// DisconnectEvery until ctx ends.
func (c *Core) RunDisconnects(ctx context.Context) {
	every := c.faults.cfg.DisconnectEvery
	if every <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.Drop(c.faults.cfg.DisconnectCount)
		}
	}
}

// DropAll ends every connection at once, as the disconnect fault does: a
// reconnect storm. It returns how many it ended.
func (c *Core) DropAll() int { return c.Drop(math.MaxInt) }

// Drop ends up to n random connections as the disconnect fault does and
// returns how many it ended. Only those are counted: a connection whose
// client said goodbye first is ending already, and the client counts a drop
// only when its goodbye goes unanswered.
func (c *Core) Drop(n int) int {
	f := c.faults
	c.mu.RLock()
	var all []*Session
	for _, byDevice := range c.online {
		for _, list := range byDevice {
			all = append(all, list...)
		}
	}
	c.mu.RUnlock()
	f.mu.Lock()
	f.rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	f.mu.Unlock()
	dropped := 0
	for _, s := range all[:min(n, len(all))] {
		if s.out.Close() {
			c.metrics.faultDisconnects.Inc()
			dropped++
		}
	}
	return dropped
}
