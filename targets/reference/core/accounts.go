package core

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"strings"
)

type token struct {
	user   string
	device int
	admin  bool
	kicked bool
}

func newToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// AdminToken exchanges the secret for a token of the admin user on device.
func (c *Core) AdminToken(secret, userID string, device int) (string, error) {
	if secret != c.cfg.Secret {
		return "", ErrNoPermission.With("secret invalid")
	}
	if userID != c.cfg.AdminID {
		return "", ErrBadArgs.With("userID %q is not an admin", userID)
	}
	t := newToken()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.statelog.token(recAdminToken, t, userID, device); err != nil {
		return "", err
	}
	c.tokens[t] = &token{user: userID, device: device, admin: true}
	return t, nil
}

// CheckSecret reports whether s is the server's secret, for protocols whose
// admin calls carry the secret itself rather than a token made from it.
func (c *Core) CheckSecret(s string) bool {
	return subtle.ConstantTimeCompare([]byte(s), []byte(c.cfg.Secret)) == 1
}

// RequireAdmin checks an admin token.
func (c *Core) RequireAdmin(t string) error {
	c.mu.RLock()
	tk := c.tokens[t]
	c.mu.RUnlock()
	switch {
	case tk == nil:
		return ErrTokenUnknown.With("token not found")
	case !tk.admin:
		return ErrNoPermission.With("only an admin can do this")
	}
	return nil
}

// TokenOwner returns the user and device of a user token the core issued
// (UserToken), kicked or not; ok is false for any other token.
func (c *Core) TokenOwner(t string) (userID string, device int, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	tk := c.tokens[t]
	if tk == nil || tk.admin {
		return "", 0, false
	}
	return tk.user, tk.device, true
}

// UserToken issues a token for (user, device). The device's previous token
// is kicked: one login per user and device.
func (c *Core) UserToken(userID string, device int) (string, error) {
	if userID == c.cfg.AdminID {
		return "", ErrBadArgs.With("cannot get a user token for the admin")
	}
	t := newToken()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users[userID] == nil {
		return "", ErrUnknownUser.With("user %s", userID)
	}
	if err := c.statelog.token(recUserToken, t, userID, device); err != nil {
		return "", err
	}
	c.userTokenLocked(t, userID, device)
	return t, nil
}

func (c *Core) userTokenLocked(t, userID string, device int) {
	key := userDevice{userID, device}
	if old, ok := c.latest[key]; ok {
		if tk := c.tokens[old]; tk != nil {
			tk.kicked = true
		}
	}
	c.tokens[t] = &token{user: userID, device: device}
	c.latest[key] = t
	if u := c.users[userID]; u != nil {
		u.tokens = append(u.tokens, t)
		u.onDevice(device)
	}
}

// SetToken makes t the token of (userID, device), registering the user when
// absent: for protocols whose clients choose their own tokens. It replaces
// the device's previous chosen token and kicks no one; "" removes it.
func (c *Core) SetToken(userID string, device int, t string) error {
	if userID == "" || userID == c.cfg.AdminID {
		return ErrBadArgs.With("userID %q cannot hold a token", userID)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.statelog.setToken(userID, device, t); err != nil {
		return err
	}
	key := userDevice{userID, device}
	if t == "" {
		delete(c.chosen, key)
		return nil
	}
	if c.users[userID] == nil {
		c.users[userID] = newUser(userID)
		c.metrics.Counts.registered.Add(1)
	}
	c.chosen[key] = t
	c.users[userID].onDevice(device)
	return nil
}

// CheckLogin validates a connection's token against its user and device:
// a token the core issued, or else the one chosen for the device.
func (c *Core) CheckLogin(t, userID string, device int) error {
	c.mu.RLock()
	tk := c.tokens[t]
	chosen, hasChosen := c.chosen[userDevice{userID, device}]
	c.mu.RUnlock()
	switch {
	case tk == nil && hasChosen:
		if subtle.ConstantTimeCompare([]byte(t), []byte(chosen)) == 1 {
			return nil
		}
		return ErrTokenInvalid.With("not the token of %s on device %d", userID, device)
	case tk == nil:
		return ErrTokenUnknown.With("token not found")
	case tk.kicked:
		return ErrTokenKicked.With("token kicked by a newer login")
	case tk.user != userID:
		return ErrTokenInvalid.With("token uid %s != userID %s", tk.user, userID)
	case tk.device != device:
		return ErrTokenInvalid.With("token platform %d != %d", tk.device, device)
	}
	return nil
}

// Register adds users, all or none.
func (c *Core) Register(ids []string) error {
	if len(ids) == 0 {
		return ErrBadArgs.With("no users")
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if id == "" || strings.Contains(id, ":") || seen[id] {
			return ErrBadArgs.With("userID %q invalid or repeated", id)
		}
		seen[id] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if c.users[id] != nil {
			return ErrExists.With("userID %s", id)
		}
	}
	if err := c.statelog.register(ids); err != nil {
		return err
	}
	for _, id := range ids {
		c.users[id] = newUser(id)
	}
	c.metrics.Counts.registered.Add(uint64(len(ids)))
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

// Befriend makes owner and each of ids friends, both ways, all or none.
func (c *Core) Befriend(owner string, ids []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.users[owner]
	if o == nil {
		return ErrUnknownUser.With("user %s", owner)
	}
	for _, id := range ids {
		switch {
		case id == owner:
			return ErrSelf.With("%s", id)
		case c.users[id] == nil:
			return ErrUnknownUser.With("user %s", id)
		case o.friends[id]:
			return ErrExists.With("%s and %s", owner, id)
		}
	}
	if err := c.statelog.befriend(owner, ids); err != nil {
		return err
	}
	for _, id := range ids {
		o.friends[id] = true
		c.users[id].friends[owner] = true
	}
	return nil
}
