// Package core is the reference target's IM server, independent of any wire
// protocol: accounts and tokens, friendships, groups, conversations with a
// seq per conversation, in-memory storage, fan-out to online connections, and
// the faults it can inject on purpose. Protocol fronts (package openim) turn
// frames into calls here.
package core

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// Error is a business error with OpenIM's error code numbering.
type Error struct {
	Code int
	Msg  string
	Dlt  string
}

func (e *Error) Error() string { return fmt.Sprintf("errCode %d %s: %s", e.Code, e.Msg, e.Dlt) }

func errf(code int, msg, format string, a ...any) *Error {
	return &Error{Code: code, Msg: msg, Dlt: fmt.Sprintf(format, a...)}
}

// Error codes (openim.md §1.8).
const (
	CodeArgs              = 1001
	CodeNoPermission      = 1002
	CodeUserNotFound      = 1101
	CodeRegistered        = 1102
	CodeGroupNotFound     = 1201
	CodeGroupExisted      = 1202
	CodeNotInGroup        = 1203
	CodeCannotAddSelf     = 1301
	CodeRelationship      = 1304
	CodeTokenInvalid      = 1502
	CodeTokenKicked       = 1506
	CodeTokenNotExist     = 1507
	CodeConnOverMax       = 1601
	CodeConnArgs          = 1602
	SessionSingle         = 1
	SessionGroup          = 3
	PlatformAdmin         = 10
	defaultMaxConns       = 100000
	defaultHistoryPerConv = 0 // unlimited
)

// Config sets the server's identity and limits.
type Config struct {
	Secret   string
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
	latest  map[userPlatform]string
	groups  map[string]*group
	convs   map[string]*Conv
	online  map[string]map[int]*Session // user → platform → session
	conns   int
	groupNo int
}

type userPlatform struct {
	user     string
	platform int
}

type user struct {
	id      string
	friends map[string]bool
	groups  map[string]bool
	singles map[string]*Conv // conversations with a first message
}

type token struct {
	user     string
	platform int
	admin    bool
	kicked   bool
}

type group struct {
	id      string
	owner   string
	members map[string]bool
	list    []string
}

// New returns an empty server.
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
		users: map[string]*user{}, tokens: map[string]*token{}, latest: map[userPlatform]string{},
		groups: map[string]*group{}, convs: map[string]*Conv{}, online: map[string]map[int]*Session{}}
	c.faults = newFaultState(cfg.Faults, m)
	c.users[cfg.AdminID] = &user{id: cfg.AdminID, friends: map[string]bool{}, groups: map[string]bool{}, singles: map[string]*Conv{}}
	return c, nil
}

// Faults returns the faults the server injects.
func (c *Core) Faults() Faults { return c.cfg.Faults }

func newToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// AdminToken exchanges the secret for an admin token.
func (c *Core) AdminToken(secret, userID string) (string, *Error) {
	if secret != c.cfg.Secret {
		return "", errf(CodeNoPermission, "NoPermissionError", "secret invalid")
	}
	if userID != c.cfg.AdminID {
		return "", errf(CodeArgs, "ArgsError", "userID %q is not an admin", userID)
	}
	t := newToken()
	c.mu.Lock()
	c.tokens[t] = &token{user: userID, platform: PlatformAdmin, admin: true}
	c.mu.Unlock()
	c.metrics.userLogins.Inc() // as OpenIM v3.8.3 counts user_login_total
	return t, nil
}

// RequireAdmin checks an admin token.
func (c *Core) RequireAdmin(t string) *Error {
	if t == "" {
		return errf(CodeArgs, "ArgsError", "header must have token")
	}
	c.mu.RLock()
	tk := c.tokens[t]
	c.mu.RUnlock()
	switch {
	case tk == nil:
		return errf(CodeTokenNotExist, "TokenNotExistError", "token not found")
	case !tk.admin:
		return errf(CodeNoPermission, "NoPermissionError", "only an admin can do this")
	}
	return nil
}

// UserToken issues a token for (user, platform). Like OpenIM's default
// multi-login policy, it kicks the platform's previous token.
func (c *Core) UserToken(userID string, platform int) (string, *Error) {
	if platform < 1 || platform > 11 || platform == PlatformAdmin {
		return "", errf(CodeArgs, "ArgsError", "platformID %d invalid", platform)
	}
	if userID == c.cfg.AdminID {
		return "", errf(CodeArgs, "ArgsError", "cannot get a user token for the admin")
	}
	t := newToken()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users[userID] == nil {
		return "", errf(CodeUserNotFound, "UserIDNotFoundError", "user %s", userID)
	}
	key := userPlatform{userID, platform}
	if old, ok := c.latest[key]; ok {
		if tk := c.tokens[old]; tk != nil {
			tk.kicked = true
		}
	}
	c.tokens[t] = &token{user: userID, platform: platform}
	c.latest[key] = t
	return t, nil
}

// CheckLogin validates a WebSocket login's token against its user and platform.
func (c *Core) CheckLogin(t, userID string, platform int) *Error {
	c.mu.RLock()
	tk := c.tokens[t]
	c.mu.RUnlock()
	switch {
	case tk == nil:
		return errf(CodeTokenNotExist, "TokenNotExistError", "token not found")
	case tk.kicked:
		return errf(CodeTokenKicked, "TokenKickedError", "token kicked by a newer login")
	case tk.user != userID:
		return errf(CodeTokenInvalid, "TokenInvalidError", "token uid %s != userID %s", tk.user, userID)
	case tk.platform != platform:
		return errf(CodeTokenInvalid, "TokenInvalidError", "token platform %d != %d", tk.platform, platform)
	}
	return nil
}

// Register adds users, all or none.
func (c *Core) Register(ids []string) *Error {
	if len(ids) == 0 {
		return errf(CodeArgs, "ArgsError", "no users")
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if id == "" || strings.Contains(id, ":") || seen[id] {
			return errf(CodeArgs, "ArgsError", "userID %q invalid or repeated", id)
		}
		seen[id] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if c.users[id] != nil {
			return errf(CodeRegistered, "RegisteredAlreadyError", "userID %s", id)
		}
	}
	for _, id := range ids {
		c.users[id] = &user{id: id, friends: map[string]bool{}, groups: map[string]bool{}, singles: map[string]*Conv{}}
	}
	c.metrics.userRegister.Add(float64(len(ids)))
	return nil
}

// Registered reports which of ids exist.
func (c *Core) Registered(ids []string) map[string]bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = c.users[id] != nil
	}
	return out
}

// ImportFriends befriends owner with each id, both ways.
func (c *Core) ImportFriends(owner string, ids []string) *Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.users[owner]
	if o == nil {
		return errf(CodeUserNotFound, "UserIDNotFoundError", "user %s", owner)
	}
	for _, id := range ids {
		switch {
		case id == owner:
			return errf(CodeCannotAddSelf, "CanNotAddYourselfError", "%s", id)
		case c.users[id] == nil:
			return errf(CodeUserNotFound, "UserIDNotFoundError", "user %s", id)
		case o.friends[id]:
			return errf(CodeRelationship, "RelationshipAlreadyError", "%s and %s", owner, id)
		}
	}
	for _, id := range ids {
		o.friends[id] = true
		c.users[id].friends[owner] = true
	}
	return nil
}

// CreateGroup creates a working group; an empty id gets a generated one.
func (c *Core) CreateGroup(id, owner string, members []string, groupType int) (string, *Error) {
	if groupType != 2 {
		return "", errf(CodeArgs, "ArgsError", "groupType %d not supported", groupType)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if id == "" {
		c.groupNo++
		id = fmt.Sprintf("%d%06d", time.Now().Unix(), c.groupNo)
	}
	if c.groups[id] != nil {
		return "", errf(CodeGroupExisted, "GroupIDExisted", "group %s", id)
	}
	all := append([]string{owner}, members...)
	seen := map[string]bool{}
	for _, m := range all {
		if seen[m] {
			return "", errf(CodeArgs, "ArgsError", "user %s repeated", m)
		}
		seen[m] = true
		if c.users[m] == nil {
			return "", errf(CodeUserNotFound, "UserIDNotFoundError", "user %s", m)
		}
	}
	g := &group{id: id, owner: owner, members: map[string]bool{}}
	c.groups[id] = g
	c.addMembersLocked(g, all)
	return id, nil
}

// Invite adds users to a group.
func (c *Core) Invite(id string, ids []string) *Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.groups[id]
	if g == nil {
		return errf(CodeGroupNotFound, "GroupIDNotFound", "group %s", id)
	}
	for _, m := range ids {
		if c.users[m] == nil {
			return errf(CodeUserNotFound, "UserIDNotFoundError", "user %s", m)
		}
	}
	c.addMembersLocked(g, ids)
	return nil
}

func (c *Core) addMembersLocked(g *group, ids []string) {
	for _, m := range ids {
		if !g.members[m] {
			g.members[m] = true
			g.list = append(g.list, m)
			c.users[m].groups[g.id] = true
		}
	}
}
