package openim

import (
	"sync"

	wire "github.com/imbench/imbench/wire/openim"
)

// meta is what OpenIM keeps of users and groups beyond the core's
// relations, as the API was given it: profiles, group names and admins,
// creation times. What nobody gave reads as empty.
type meta struct {
	mu     sync.RWMutex
	users  map[string]wire.UserInfo
	groups map[string]*groupMeta
}

type groupMeta struct {
	info   wire.GroupInfo // the fields create_group was given, plus id, owner, creator, time
	admins map[string]bool
}

func (m *meta) init() {
	m.users = map[string]wire.UserInfo{}
	m.groups = map[string]*groupMeta{}
}

func (m *meta) registered(users []wire.UserInfo, now int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, u := range users {
		u.CreateTime = now
		u.AppMangerLevel = 0
		m.users[u.UserID] = u
	}
}

func (m *meta) user(id string) wire.UserInfo {
	m.mu.RLock()
	u, ok := m.users[id]
	m.mu.RUnlock()
	if !ok {
		u.UserID = id
	}
	return u
}

func (m *meta) created(g *wire.GroupInfo, admins []string) {
	gm := &groupMeta{info: *g, admins: map[string]bool{}}
	for _, a := range admins {
		gm.admins[a] = true
	}
	m.mu.Lock()
	m.groups[g.GroupID] = gm
	m.mu.Unlock()
}

// group returns a copy of what is kept of a group, and whether anything is.
func (m *meta) group(id string) (wire.GroupInfo, map[string]bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if gm := m.groups[id]; gm != nil {
		return gm.info, gm.admins
	}
	return wire.GroupInfo{GroupID: id}, nil
}
