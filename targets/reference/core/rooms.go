package core

import "sort"

// A chatroom is the conversation of whoever is in it when a message is
// sent. Users join and leave at run time; a message goes to the online
// sessions of the members of that moment, and nothing is kept to pull
// afterwards: what a member misses (not joined yet, or offline) stays
// missed. Its conversation keeps only its seq counter, so a long chatroom
// run does not grow the core's memory per message. Membership is the front
// end's to manage: it does not end with a member's connection.
//
// Rooms and groups are apart: a room and a group may share an id. A room
// that does not exist is refused as ErrUnknownGroup.
type room struct {
	members map[string]int // user → its index in list
	list    []string       // the members, in no particular order
}

// JoinRoom makes users members of chatroom roomID, creating the room when
// it is missing (with no users: an empty room). Members already in it stay
// as they are.
func (c *Core) JoinRoom(roomID string, users ...string) error {
	if roomID == "" {
		return ErrBadArgs.With("a chatroom needs an id")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range users {
		if c.users[u] == nil {
			return ErrUnknownUser.With("user %s", u)
		}
	}
	if err := c.statelog.members(recJoinRoom, roomID, users); err != nil {
		return err
	}
	r := c.rooms[roomID]
	if r == nil {
		r = &room{members: map[string]int{}}
		c.rooms[roomID] = r
	}
	for _, u := range users {
		if _, in := r.members[u]; !in {
			r.members[u] = len(r.list)
			r.list = append(r.list, u)
		}
	}
	return nil
}

// LeaveRoom takes users out of chatroom roomID; users not in it are
// ignored. The room stays, empty or not, and so does its seq.
func (c *Core) LeaveRoom(roomID string, users ...string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.rooms[roomID]
	if r == nil {
		return ErrUnknownGroup.With("chatroom %s", roomID)
	}
	if err := c.statelog.members(recLeaveRoom, roomID, users); err != nil {
		return err
	}
	for _, u := range users {
		i, in := r.members[u]
		if !in {
			continue
		}
		// The last member takes the leaver's place: a send copies its
		// recipients under the core's lock, so none sees this in passing.
		last := len(r.list) - 1
		r.list[i] = r.list[last]
		r.members[r.list[i]] = i
		r.list[last] = ""
		r.list = r.list[:last]
		delete(r.members, u)
	}
	return nil
}

// RoomMembers returns a chatroom's members, sorted.
func (c *Core) RoomMembers(roomID string) ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r := c.rooms[roomID]
	if r == nil {
		return nil, ErrUnknownGroup.With("chatroom %s", roomID)
	}
	out := append([]string(nil), r.list...)
	sort.Strings(out)
	return out, nil
}

// pullRoom is a pull of a chatroom, which has nothing to give: its members
// get an empty page at its end, anyone else ErrNotMember.
func (c *Core) pullRoom(userID, roomID string) (Page, error) {
	c.mu.RLock()
	in := false
	if r := c.rooms[roomID]; r != nil {
		_, in = r.members[userID]
	}
	c.mu.RUnlock()
	if !in {
		return Page{AtEnd: true}, ErrNotMember.With("%s is not in chatroom %s", userID, roomID)
	}
	return Page{AtEnd: true}, nil
}
