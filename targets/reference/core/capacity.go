package core

import (
	"runtime"
	"sync"
	"time"
)

// The capacity fault: a server that serves at most Capacity messages a
// second on one core and queues the rest. Each message is acknowledged at
// once (its answer carries no seq) and waits its turn; one worker gives
// each 1/Capacity s of its core, storing and pushing it included (the
// slots follow the clock: what the store and the push take, or a virtual
// machine's host takes from the core, does not lower the capacity). Below the
// capacity the worker's core is partly busy and the latency low; above it
// the core is full, the queue and the process's memory grow, and every
// message waits longer than the one before: what a limit search must find
// and name (load/limit). With the batch fault too, a served message goes to
// its conversation's batch (an OpenIM at its capacity whose msgtransfer
// drops large batches).
type capacity struct {
	c    *Core
	each time.Duration

	mu    sync.Mutex
	queue []*Message
	wake  *sync.Cond
}

func newCapacity(c *Core, perSecond float64) *capacity {
	k := &capacity{c: c, each: time.Duration(float64(time.Second) / perSecond)}
	k.wake = sync.NewCond(&k.mu)
	go k.serve()
	return k
}

// take queues m for the worker.
func (k *capacity) take(m *Message) {
	k.mu.Lock()
	k.queue = append(k.queue, m)
	k.mu.Unlock()
	k.wake.Signal()
}

func (k *capacity) serve() {
	// On one thread of its own, as a single-threaded stage runs: what
	// fills is one core, and /proc shows that thread full.
	runtime.LockOSThread()
	var slot time.Time // when the current message's slot ends
	for {
		k.mu.Lock()
		idle := len(k.queue) == 0
		for len(k.queue) == 0 {
			k.wake.Wait()
		}
		m := k.queue[0]
		k.queue[0] = nil
		k.queue = k.queue[1:]
		k.mu.Unlock()
		if idle || slot.IsZero() {
			slot = time.Now() // nothing waited: no slots to catch up on
		}
		slot = slot.Add(k.each)
		spinUntil(slot)
		r, err := k.c.route(m)
		switch {
		case err == nil && k.c.batches(m):
			k.c.batch(r.cv, m, r.members) // served, then stored with its batch (or dropped)
		case err == nil:
			err = k.c.commit(m, r)
		}
		if err != nil {
			k.c.log.Warn("capacity: a queued message could not be stored", "conversation", m.Conv.ID, "err", err)
		}
	}
}

// spinUntil keeps a core busy until t: the work the capacity stands for.
func spinUntil(t time.Time) {
	for time.Now().Before(t) {
	}
}
