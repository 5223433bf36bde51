package core

import "slices"

// Read-only views of a user's relations, for front ends whose clients sync
// them (OpenIM's SDK asks for its friends, groups and conversations at
// every login). Lists come back sorted.

// Friends returns a user's friends.
func (c *Core) Friends(userID string) ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	u := c.users[userID]
	if u == nil {
		return nil, ErrUnknownUser.With("user %s", userID)
	}
	out := make([]string, 0, len(u.friends))
	for f := range u.friends {
		out = append(out, f)
	}
	slices.Sort(out)
	return out, nil
}

// JoinedGroups returns the groups a user is a member of.
func (c *Core) JoinedGroups(userID string) ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	u := c.users[userID]
	if u == nil {
		return nil, ErrUnknownUser.With("user %s", userID)
	}
	out := make([]string, 0, len(u.groups))
	for g := range u.groups {
		out = append(out, g)
	}
	slices.Sort(out)
	return out, nil
}

// GroupOwner returns the user who created a group.
func (c *Core) GroupOwner(groupID string) (string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	g := c.groups[groupID]
	if g == nil {
		return "", ErrUnknownGroup.With("group %s", groupID)
	}
	return g.owner, nil
}

// DirectPeers returns the users a user has a one-to-one conversation with
// (one with a message in it).
func (c *Core) DirectPeers(userID string) ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	u := c.users[userID]
	if u == nil {
		return nil, ErrUnknownUser.With("user %s", userID)
	}
	out := make([]string, 0, len(u.direct))
	for k := range u.direct {
		if k.ID == userID {
			out = append(out, k.Peer)
		} else {
			out = append(out, k.ID)
		}
	}
	slices.Sort(out)
	return out, nil
}

// AdminID returns the user id of the server's admin.
func (c *Core) AdminID() string { return c.cfg.AdminID }
