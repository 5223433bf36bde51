package core

import (
	"fmt"
	"time"
)

// CreateGroup creates a group of owner and members; an empty id gets a
// generated one.
func (c *Core) CreateGroup(id, owner string, members []string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id == "" {
		c.groupNo++
		id = fmt.Sprintf("%d%06d", time.Now().Unix(), c.groupNo)
	}
	if c.groups[id] != nil {
		return "", ErrExists.With("group %s", id)
	}
	all := append([]string{owner}, members...)
	seen := map[string]bool{}
	for _, m := range all {
		if seen[m] {
			return "", ErrBadArgs.With("user %s repeated", m)
		}
		seen[m] = true
		if c.users[m] == nil {
			return "", ErrUnknownUser.With("user %s", m)
		}
	}
	if err := c.statelog.createGroup(id, owner, members); err != nil {
		return "", err
	}
	g := &group{id: id, owner: owner, members: map[string]bool{}}
	c.groups[id] = g
	c.addMembersLocked(g, all)
	return id, nil
}

// AddMembers adds users to a group; members already in it stay as they are.
func (c *Core) AddMembers(groupID string, ids []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.groups[groupID]
	if g == nil {
		return ErrUnknownGroup.With("group %s", groupID)
	}
	for _, m := range ids {
		if c.users[m] == nil {
			return ErrUnknownUser.With("user %s", m)
		}
	}
	if err := c.statelog.members(recAddMembers, groupID, ids); err != nil {
		return err
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

// RemoveMembers takes users out of a group; ids not in it are ignored. The
// group stays, empty or not.
func (c *Core) RemoveMembers(groupID string, ids []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.groups[groupID]
	if g == nil {
		return ErrUnknownGroup.With("group %s", groupID)
	}
	if err := c.statelog.members(recRemoveMembers, groupID, ids); err != nil {
		return err
	}
	gone := map[string]bool{}
	for _, m := range ids {
		if g.members[m] {
			gone[m] = true
			delete(g.members, m)
			delete(c.users[m].groups, g.id)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	list := make([]string, 0, len(g.list)-len(gone))
	for _, m := range g.list {
		if !gone[m] {
			list = append(list, m)
		}
	}
	g.list = list
	return nil
}

// Members returns a group's members in the order they joined.
func (c *Core) Members(groupID string) ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	g := c.groups[groupID]
	if g == nil {
		return nil, ErrUnknownGroup.With("group %s", groupID)
	}
	return append([]string(nil), g.list...), nil
}
