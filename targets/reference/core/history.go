package core

// MaxSeqs returns the highest seq of every conversation of user that has
// messages; the lowest seq is always 1 here. Chatrooms, which keep nothing
// to pull, are never listed.
func (c *Core) MaxSeqs(userID string) map[ConvKey]int64 {
	c.mu.RLock()
	u := c.users[userID]
	var convs []*Conv
	if u != nil {
		for gid := range u.groups {
			if cv := c.convs[GroupKey(gid)]; cv != nil {
				convs = append(convs, cv)
			}
		}
		for _, cv := range u.direct {
			convs = append(convs, cv)
		}
	}
	c.mu.RUnlock()
	out := make(map[ConvKey]int64, len(convs))
	for _, cv := range convs {
		cv.mu.Lock()
		if cv.seq > 0 {
			out[cv.key] = cv.seq
		}
		cv.mu.Unlock()
	}
	return out
}

// LastSeq returns the highest seq of conversation k: 0 when it has no
// messages or does not exist. A chatroom's counts the messages it was sent,
// though none is kept.
func (c *Core) LastSeq(k ConvKey) int64 {
	c.mu.RLock()
	cv := c.convs[k]
	c.mu.RUnlock()
	if cv == nil {
		return 0
	}
	cv.mu.Lock()
	defer cv.mu.Unlock()
	return cv.seq
}

// Pull returns messages begin..end of a conversation the user belongs to,
// clamped to what exists; when the range is longer than num, only its last
// num. A conversation the user is not in, or one without messages, is
// ErrNotMember. A chatroom keeps no history: its members get an empty page
// at its end.
func (c *Core) Pull(userID string, k ConvKey, begin, end, num int64) (Page, error) {
	if k.Kind == Room {
		return c.pullRoom(userID, k.ID)
	}
	c.mu.RLock()
	cv := c.convs[k]
	allowed := false
	if u := c.users[userID]; u != nil && cv != nil {
		if k.Kind == Group {
			allowed = u.groups[k.ID]
		} else {
			_, allowed = u.direct[k]
		}
	}
	c.mu.RUnlock()
	if !allowed {
		return Page{AtEnd: true}, ErrNotMember.With("%s has no conversation %v", userID, k)
	}
	if num <= 0 {
		return Page{AtEnd: true}, nil
	}
	cv.mu.Lock()
	defer cv.mu.Unlock()
	maxSeq := int64(len(cv.msgs))
	begin = max(begin, 1)
	end = min(end, maxSeq)
	if end >= begin && end-begin+1 > num { // end < begin: end-begin+1 may wrap
		begin = end - num + 1
	}
	var msgs []*Message
	for s := begin; s <= end; s++ {
		msgs = append(msgs, cv.msgs[s-1])
	}
	c.metrics.pulled.Add(float64(len(msgs)))
	return Page{Msgs: msgs, EndSeq: end, AtEnd: maxSeq <= end}, nil
}
