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
)

const defaultMaxConns = 100000

// Config sets the server's identity and limits.
type Config struct {
	Secret   string // exchanged for an admin token
	AdminID  string
	MaxConns int
	Faults   Faults
	Log      *slog.Logger
}

// Core is the server state.
type Core struct {
	cfg     Config
	metrics *Metrics
	faults  *faultState
	log     *slog.Logger

	mu      sync.RWMutex
	users   map[string]*user
	tokens  map[string]*token
	latest  map[userDevice]string
	chosen  map[userDevice]string // tokens clients chose (SetToken)
	groups  map[string]*group
	rooms   map[string]*room
	convs   map[ConvKey]*Conv
	online  map[string]map[int]*Session // user → device → session
	conns   int
	groupNo int
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
		groups: map[string]*group{}, rooms: map[string]*room{}, convs: map[ConvKey]*Conv{}, online: map[string]map[int]*Session{}}
	c.faults = newFaultState(cfg.Faults)
	c.users[cfg.AdminID] = newUser(cfg.AdminID)
	return c, nil
}

// Faults returns the faults the server injects.
func (c *Core) Faults() Faults { return c.cfg.Faults }
