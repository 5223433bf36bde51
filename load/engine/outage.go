package engine

import (
	"slices"
	"sort"
	"sync"
	"time"
)

// Outage is a window in which users of this process were dropped by the
// server and not yet back: from the first drop while none was down until
// the last of them logged in again or gave up.
type Outage struct {
	Start, End time.Time
	Dropped    int64 // drops in the window
	Reconnects int64 // logins again that succeeded
	GaveUp     int64 // users that stopped trying
	// ReconnectsPerSecond counts the window's reconnects by wall-clock
	// second from Start's (at most maxOutageSeconds of them).
	ReconnectsPerSecond []int64
}

const (
	maxOutages       = 100  // windows kept; more are counted only
	maxOutageSeconds = 3600 // seconds of reconnect counts a window keeps
)

// outages tracks the windows; constant memory however many drops.
type outages struct {
	mu      sync.Mutex
	down    int64
	cur     *Outage
	done    []Outage
	omitted int // windows beyond maxOutages, the smallest of them
}

func (o *outages) drop(now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cur == nil {
		o.cur = &Outage{Start: now}
	}
	o.down++
	o.cur.Dropped++
}

// back ends one user's absence: reconnected, or given up.
func (o *outages) back(now time.Time, reconnected bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	w := o.cur
	if w == nil {
		return
	}
	if reconnected {
		w.Reconnects++
		if i := now.Unix() - w.Start.Unix(); i >= 0 && i < maxOutageSeconds {
			for int64(len(w.ReconnectsPerSecond)) <= i {
				w.ReconnectsPerSecond = append(w.ReconnectsPerSecond, 0)
			}
			w.ReconnectsPerSecond[i]++
		}
	} else {
		w.GaveUp++
	}
	if o.down--; o.down > 0 {
		return
	}
	w.End = now
	o.cur = nil
	o.done = append(o.done, *w)
	if len(o.done) > maxOutages {
		// Keep the largest windows: a storm outweighs a single drop.
		sort.SliceStable(o.done, func(i, j int) bool { return o.done[i].Dropped > o.done[j].Dropped })
		o.done = o.done[:maxOutages]
		o.omitted++
	}
}

// Outages returns the ended windows in time order, one still open (End
// zero), and how many small windows were left out.
func (sh *Shared) Outages() (ws []Outage, omitted int) {
	o := &sh.outages
	o.mu.Lock()
	defer o.mu.Unlock()
	ws = append(ws, o.done...)
	if o.cur != nil {
		w := *o.cur
		w.ReconnectsPerSecond = slices.Clone(w.ReconnectsPerSecond)
		ws = append(ws, w)
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Start.Before(ws[j].Start) })
	return ws, o.omitted
}

// Down is the number of users of this process dropped and not yet back.
func (sh *Shared) Down() int64 {
	o := &sh.outages
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.down
}
