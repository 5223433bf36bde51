package core

import "strings"

// DeleteUser removes a user and everything that is only the user's: its
// tokens (chosen ones too), friendships, group and chatroom memberships,
// its direct conversations with their history, and its feed mark. Groups
// it owns stay with their other members. Its connections are kicked, as
// Wildfire's /admin/user/destroy kicks them (told, then closed).
func (c *Core) DeleteUser(id string) error {
	if id == c.cfg.AdminID {
		return ErrBadArgs.With("the admin cannot be deleted")
	}
	c.mu.Lock()
	u := c.users[id]
	if u == nil {
		c.mu.Unlock()
		return ErrUnknownUser.With("user %s", id)
	}
	if err := c.statelog.removal(recDeleteUser, id); err != nil {
		c.mu.Unlock()
		return err
	}
	for f := range u.friends {
		delete(c.users[f].friends, id)
	}
	for g := range u.groups {
		c.dropMemberLocked(c.groups[g], id)
	}
	for _, r := range c.rooms {
		if _, in := r.members[id]; in {
			c.leaveRoomLocked(r, id)
		}
	}
	for k := range u.direct {
		delete(c.convs, k)
		peer := k.Peer
		if peer == id {
			peer = k.ID
		}
		if p := c.users[peer]; p != nil {
			delete(p.direct, k)
		}
	}
	for _, t := range u.tokens {
		delete(c.tokens, t)
	}
	for _, d := range u.devices {
		delete(c.latest, userDevice{id, d})
		delete(c.chosen, userDevice{id, d})
	}
	if c.kept[id] {
		delete(c.kept, id)
		c.keptUsers.Add(-1)
	}
	delete(c.users, id)
	var online []*Session
	for _, list := range c.online[id] {
		online = append(online, list...)
	}
	c.mu.Unlock()
	for _, s := range online {
		s.out.Kick() // its front end detaches it once closed
	}
	return nil
}

// HasGroup reports whether the group exists.
func (c *Core) HasGroup(groupID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.groups[groupID] != nil
}

// DismissGroup removes a group: its members leave it and its conversation
// goes with its history.
func (c *Core) DismissGroup(groupID string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.groups[groupID]
	if g == nil {
		return ErrUnknownGroup.With("group %s", groupID)
	}
	if err := c.statelog.removal(recDismissGroup, groupID); err != nil {
		return err
	}
	for m := range g.members {
		delete(c.users[m].groups, groupID)
	}
	delete(c.groups, groupID)
	delete(c.convs, GroupKey(groupID))
	return nil
}

// DeleteRoom removes a chatroom, its members and its seq.
func (c *Core) DeleteRoom(roomID string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rooms[roomID] == nil {
		return ErrUnknownGroup.With("chatroom %s", roomID)
	}
	if err := c.statelog.removal(recDeleteRoom, roomID); err != nil {
		return err
	}
	delete(c.rooms, roomID)
	delete(c.convs, RoomKey(roomID))
	return nil
}

// Census counts the users, groups and chatrooms whose ids begin with
// prefix: what a run named by its prefix left on the server.
func (c *Core) Census(prefix string) (users, groups, rooms int) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for id := range c.users {
		if strings.HasPrefix(id, prefix) {
			users++
		}
	}
	for id := range c.groups {
		if strings.HasPrefix(id, prefix) {
			groups++
		}
	}
	for id := range c.rooms {
		if strings.HasPrefix(id, prefix) {
			rooms++
		}
	}
	return users, groups, rooms
}

// dropMemberLocked takes user id out of group g, keeping the others' order.
func (c *Core) dropMemberLocked(g *group, id string) {
	delete(g.members, id)
	for i, m := range g.list {
		if m == id {
			g.list = append(g.list[:i:i], g.list[i+1:]...)
			break
		}
	}
}

// leaveRoomLocked takes user u, a member, out of room r: the last member
// takes its place, as LeaveRoom does.
func (c *Core) leaveRoomLocked(r *room, u string) {
	i := r.members[u]
	last := len(r.list) - 1
	r.list[i] = r.list[last]
	r.members[r.list[i]] = i
	r.list[last] = ""
	r.list = r.list[:last]
	delete(r.members, u)
}

// removal records a deletion: kind is recDeleteUser, recDismissGroup or
// recDeleteRoom, id what it deletes.
func (l *stateLog) removal(kind recKind, id string) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.write(appendStr(l.begin(kind), id))
}
