package wukongim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
)

// LoginDrops is a fault: the login failures a real WuKongIM shows in a
// login burst (wukongim.md §14: 0.4–1.3 % of a few hundred logins at once).
// Of the logins in a burst that would succeed, a share Close has its
// connection closed after the CONNECT, before any CONNACK (the real
// server's "writeFrame: conn not exist"); a share Silent never gets its
// CONNACK: the connection stays open, silent, until the client gives up or
// the read timeout passes. Each is counted on
// imbench_target_fault_login_drops_total (drop="closed", "silent").
type LoginDrops struct {
	Close  float64
	Silent float64
	// CloseAfter: a dropped login's connection is closed this long after
	// its CONNECT (0: at once; the real server's is about 3 s, §17).
	CloseAfter time.Duration
	// Burst: a login is in a burst when at least this many other logins
	// its token let in reached this front end within Window before it (0:
	// every login is).
	Burst  int
	Window time.Duration // 0: a second
	Seed   uint64        // 0: from the clock
}

// DefaultLoginBurst is the CONNECTs in a second from which a login is in a
// burst.
const DefaultLoginBurst = 10

// Active reports whether the fault drops anything.
func (d LoginDrops) Active() bool { return d.Close > 0 || d.Silent > 0 }

// Validate rejects impossible settings.
func (d LoginDrops) Validate() error {
	if d.Close < 0 || d.Silent < 0 || d.Close+d.Silent > 1 {
		return fmt.Errorf("login drop rates %v (closed) and %v (silent) must be within 0..1 and add up to 1 at most", d.Close, d.Silent)
	}
	if d.Burst < 0 || d.Window < 0 || d.CloseAfter < 0 {
		return errors.New("the login burst, its window and the close's delay must not be negative")
	}
	return nil
}

// loginDrops is the fault's state: its settings, its random numbers and
// the times of the latest CONNECTs.
type loginDrops struct {
	mu     sync.Mutex
	cfg    LoginDrops
	rng    *rand.Rand
	recent []time.Time // ring of the last cfg.Burst CONNECTs
	next   int
}

// SetLoginDrops switches the login-drop fault on (or off, with zero
// rates); safe while serving.
func (f *FrontEnd) SetLoginDrops(d LoginDrops) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if d.Window == 0 {
		d.Window = time.Second
	}
	seed := d.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	s := &loginDrops{cfg: d, rng: rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d)), recent: make([]time.Time, d.Burst)}
	f.drops.Store(s)
	return nil
}

type dropHow uint8

const (
	keep dropHow = iota
	dropClose
	dropSilent
)

// noteConnect records a login its token let in and reports whether it is
// in a burst.
func (f *FrontEnd) noteConnect() bool {
	s := f.drops.Load()
	if s == nil || !s.cfg.Active() {
		return false
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.recent)
	if n == 0 {
		return true
	}
	oldest := s.recent[s.next] // the n-th CONNECT before this one
	s.recent[s.next] = now
	s.next = (s.next + 1) % n
	return !oldest.IsZero() && now.Sub(oldest) <= s.cfg.Window
}

// loginDrop decides what becomes of a login in a burst (or not) that
// would succeed.
func (f *FrontEnd) loginDrop(burst bool) dropHow {
	s := f.drops.Load()
	if !burst || s == nil {
		return keep
	}
	s.mu.Lock()
	r := s.rng.Float64()
	s.mu.Unlock()
	switch {
	case r < s.cfg.Close:
		return dropClose
	case r < s.cfg.Close+s.cfg.Silent:
		return dropSilent
	}
	return keep
}

// dropLogin carries a drop out on a connection whose CONNECT was read.
func (g *gateway) dropLogin(t transport, how dropHow) {
	m := g.f.Metrics
	if how == dropClose {
		m.LoginDropped(core.LoginDropClosed)
		if s := g.f.drops.Load(); s != nil && s.cfg.CloseAfter > 0 {
			g.silent(t, s.cfg.CloseAfter)
		}
		t.Close()
		return
	}
	m.LoginDropped(core.LoginDropSilent)
	g.silent(t, g.readTimeout)
	t.Close()
}
