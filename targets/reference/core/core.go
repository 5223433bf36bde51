// Package core is the reference target's IM server, independent of any wire
// protocol: accounts and tokens, friendships, groups, chatrooms,
// conversations with a seq per conversation, in-memory storage (none for
// chatrooms), fan-out to online connections, and the faults it can inject on
// purpose. Protocol front ends turn frames into calls here, map conversation
// keys to their ids, carry their message fields in the opaque payload, map
// the Err* refusals to their codes and export the counts under their names.
package core

import (
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
)

const defaultMaxConns = 100000

// Config sets the server's identity and limits.
type Config struct {
	Secret   string // exchanged for an admin token
	AdminID  string
	MaxConns int
	Faults   Faults
	Log      *slog.Logger
	StateLog string // a file to append the state to and replay it from at start (statelog.go); "": memory only
}

// Core is the server state.
type Core struct {
	cfg      Config
	metrics  *Metrics
	faults   *faultState
	capacity *capacity // the capacity fault's worker, when it is on
	log      *slog.Logger

	statelog *stateLog // nil: none, and while replaying

	mu      sync.RWMutex
	users   map[string]*user
	tokens  map[string]*token
	latest  map[userDevice]string
	chosen  map[userDevice]string // tokens clients chose (SetToken)
	groups  map[string]*group
	rooms   map[string]*room
	convs   map[ConvKey]*Conv
	online  map[string]map[int][]*Session // user → device → sessions (several only if SameTokenJoins)
	conns   int
	groupNo int
	// user → all of online's sessions, which a fan-out walks (under mu,
	// as online): replaced, never changed in place.
	sessions map[string][]*Session

	// Feeds (SetFeed, KeepFeed): users whose front end keeps a feed of
	// their own, handed what they miss while offline.
	feed      func(p *Push, offline []string)
	kept      map[string]bool
	keptUsers atomic.Int64 // len(kept): Send looks for offline users only when > 0
}

type userDevice struct {
	user   string
	device int
}

type user struct {
	id      string
	friends map[string]bool
	groups  map[string]bool
	direct  map[ConvKey]*Conv // direct conversations with a first message
	// What DeleteUser removes besides: the user tokens issued to it and the
	// devices it holds a token on (issued or chosen), so that a deletion
	// costs the user's own entries, not a pass over everyone's.
	tokens  []string
	devices []int
	// everOn: it has logged in (Attach) since the start; until then the
	// deliveries lost messages owed it wait in owedLost, counted when it
	// first logs in, never if it never does.
	everOn   bool
	owedLost [lastKind + 1]int
}

func (u *user) onDevice(d int) {
	for _, x := range u.devices {
		if x == d {
			return
		}
	}
	u.devices = append(u.devices, d)
}

func newUser(id string) *user {
	return &user{id: id, friends: map[string]bool{}, groups: map[string]bool{}, direct: map[ConvKey]*Conv{}}
}

type group struct {
	id      string
	owner   string
	members map[string]bool
	list    []string
}

// New returns an empty server counting on m.
func New(cfg Config, m *Metrics) (*Core, error) {
	if cfg.Secret == "" {
		return nil, fmt.Errorf("reference target: a secret is required (-secret or IMBENCH_TARGET_SECRET)")
	}
	if cfg.AdminID == "" {
		cfg.AdminID = "imAdmin"
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = defaultMaxConns
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if err := cfg.Faults.Validate(); err != nil {
		return nil, err
	}
	c := &Core{cfg: cfg, metrics: m, log: cfg.Log,
		users: map[string]*user{}, tokens: map[string]*token{}, latest: map[userDevice]string{}, chosen: map[userDevice]string{},
		groups: map[string]*group{}, rooms: map[string]*room{}, convs: map[ConvKey]*Conv{}, online: map[string]map[int][]*Session{}, sessions: map[string][]*Session{},
		kept: map[string]bool{}}
	c.faults = newFaultState(cfg.Faults)
	if cfg.Faults.Capacity > 0 {
		c.capacity = newCapacity(c, cfg.Faults.Capacity)
	}
	c.users[cfg.AdminID] = newUser(cfg.AdminID)
	if cfg.StateLog != "" {
		l, err := c.openStateLog(cfg.StateLog)
		if err != nil {
			return nil, err
		}
		c.statelog = l
	}
	return c, nil
}

// Faults returns the faults the server injects.
func (c *Core) Faults() Faults { return c.cfg.Faults }

// Secret returns the server's secret, for protocols whose admin calls are
// signed with it rather than carrying it (CheckSecret) or a token.
func (c *Core) Secret() string { return c.cfg.Secret }

// SetFeed installs the hook of a front end that keeps per-user feeds
// (Wildfire's notify-and-pull): for every stored message of a group or
// direct conversation, fn gets the push and the members other than the
// sender that KeepFeed marked and that have no online session, called with
// the conversation locked right after the seq is given (so in seq order per
// conversation), never for a lost message nor a chatroom's. fn must not
// call back into the core. Set it before serving; nil removes it.
func (c *Core) SetFeed(fn func(p *Push, offline []string)) {
	c.mu.Lock()
	c.feed = fn
	c.mu.Unlock()
}

// KeepFeed marks a user whose front end keeps a feed (see SetFeed). While
// no user is marked, Send does no work for feeds.
func (c *Core) KeepFeed(userID string) {
	c.mu.Lock()
	if !c.kept[userID] {
		c.kept[userID] = true
		c.keptUsers.Add(1)
	}
	c.mu.Unlock()
}
