package core

import "time"

type recipient struct {
	user string
	sess *Session
}

// Send validates, stores and fans out one message, returning it as stored
// (seq and time filled). The sender's own connections get the message too,
// so the sender's other devices stay in sync; faults never touch those. A
// chatroom's message is numbered and pushed but not kept. A System message
// (one the server makes, such as a notification) is never faulted, and its
// sender need not be in the group it goes to. Under the batch fault a
// message is acknowledged at once, with no seq, and stored (or dropped)
// with its conversation's batch.
func (c *Core) Send(m *Message) (*Message, error) {
	if m.Sender == "" {
		return nil, ErrBadArgs.With("a message needs a sender")
	}
	kind := m.Conv.Kind
	if !kind.valid() {
		return nil, ErrBadArgs.With("conversation kind %d", kind)
	}
	r, err := c.route(m)
	if err != nil {
		c.metrics.Counts.refused[kind].Add(1)
		return nil, err
	}
	m.Time = time.Now().UnixMilli()
	if !m.System && c.faults.lose() {
		c.countLost(kind, m.Sender, r.members, r.others)
		c.metrics.Counts.accepted[kind].Add(1)
		return m, nil // acknowledged, never stored, never pushed
	}
	if !m.System && c.faults.ackLate() { // decided before m is shared with the pushes
		m.AckLate = c.faults.cfg.AckLateBy
	}
	if m.Transient {
		c.pushOnly(m, r)
		c.metrics.Counts.accepted[kind].Add(1)
		return m, nil
	}
	if !m.System && c.capacity != nil {
		c.capacity.take(m)
		c.metrics.Counts.accepted[kind].Add(1)
		return m, nil
	}
	if c.batches(m) {
		c.batch(r.cv, m, r.members)
		c.metrics.Counts.accepted[kind].Add(1)
		return m, nil
	}
	if err := c.commit(m, r); err != nil {
		return nil, err
	}
	c.metrics.Counts.accepted[kind].Add(1)
	return m, nil
}

// routed is where a message goes, as its conversation stands now.
type routed struct {
	cv      *Conv
	others  int         // members but the sender: the deliveries a lost message owes
	members []string    // every member, the sender's too (not kept past the call for a chatroom)
	targets []recipient // every online session of every member, the sender's too
	offline []string    // members whose front end keeps a feed and that are offline
}

// route finds a message's conversation and its recipients.
func (c *Core) route(m *Message) (routed, error) {
	kind := m.Conv.Kind
	c.mu.RLock()
	members, err := c.membersLocked(m.Conv, m.Sender, m.System)
	if err != nil {
		c.mu.RUnlock()
		return routed{}, err
	}
	// Deliveries a lost message owes: every member but the sender, online
	// or not, for groups and chatrooms alike. A chatroom's are those a load
	// client expects too: a message is owed to every member who had joined
	// when it was sent (the engine counts joins, not connections, and a
	// member that dropped stays a member), so for a lost message the
	// verifier misses exactly these. What an offline member misses of the
	// messages that were not lost is no fault's doing and not counted here.
	// The one way the two counts part: a member whose join is applied here
	// but not yet answered to its client when the message arrives is
	// counted, while a client that stamps a join at its answer does not
	// expect the message; only the client can tell that case apart.
	r := routed{others: len(members) - 1, members: members, targets: make([]recipient, 0, len(members))}
	// Members a front end keeps a feed for and that are offline: theirs
	// are filed in their feeds (SetFeed). Only looked for while a user is
	// marked, so protocols without feeds pay nothing.
	withFeeds := c.feed != nil && kind != Room && c.keptUsers.Load() > 0
	for _, u := range members {
		online := c.sessions[u]
		for _, s := range online {
			r.targets = append(r.targets, recipient{u, s})
		}
		if withFeeds && len(online) == 0 && u != m.Sender && c.kept[u] {
			r.offline = append(r.offline, u)
		}
	}
	r.cv = c.convs[m.Conv]
	c.mu.RUnlock()
	if r.cv == nil {
		r.cv = c.openConv(m.Conv)
	}
	return r, nil
}

// pushOnly pushes a transient message to the members online: no seq, no
// history, no feed for the offline.
func (c *Core) pushOnly(m *Message, r routed) {
	p := &Push{Msg: m}
	at := time.Now()
	for _, t := range r.targets {
		c.deliver(t.sess, p, at, m.System || t.user == m.Sender)
	}
}

// commit numbers, keeps and pushes a message (the caller counts it
// accepted).
func (c *Core) commit(m *Message, r routed) error {
	kind := m.Conv.Kind
	cv := r.cv
	cv.mu.Lock()
	cv.seq++
	m.Seq = cv.seq
	if err := c.statelog.message(m); err != nil {
		cv.seq--
		cv.mu.Unlock()
		m.Seq = 0
		return err
	}
	if kind.keepsHistory() {
		cv.msgs = append(cv.msgs, m)
	}
	p := &Push{Msg: m}
	if len(r.offline) > 0 {
		c.feed(p, r.offline)
	}
	at := time.Now()
	for _, t := range r.targets {
		c.deliver(t.sess, p, at, m.System || t.user == m.Sender)
	}
	cv.mu.Unlock()
	c.metrics.stored.Inc()
	c.metrics.Counts.stored.Add(1)
	if m.AckLate > 0 {
		c.metrics.faultLateAcks[kind].Inc()
	}
	return nil
}

// membersLocked returns who is in conversation k, if sender may write
// there; the server itself (system) may write to any group's.
func (c *Core) membersLocked(k ConvKey, sender string, system bool) ([]string, error) {
	switch k.Kind {
	case Direct:
		if sender != k.ID && sender != k.Peer {
			return nil, ErrNotMember.With("%s is not in the conversation of %s and %s", sender, k.ID, k.Peer)
		}
		for _, u := range []string{k.ID, k.Peer} {
			if c.users[u] == nil {
				return nil, ErrUnknownUser.With("user %s", u)
			}
		}
		if k.ID == k.Peer {
			return []string{k.ID}, nil
		}
		return []string{k.ID, k.Peer}, nil
	case Room:
		r := c.rooms[k.ID]
		if r == nil {
			return nil, ErrUnknownGroup.With("chatroom %s", k.ID)
		}
		if _, in := r.members[sender]; !in {
			return nil, ErrNotMember.With("%s is not in chatroom %s", sender, k.ID)
		}
		return r.list, nil
	default:
		g := c.groups[k.ID]
		if g == nil {
			return nil, ErrUnknownGroup.With("group %s", k.ID)
		}
		if !system && !g.members[sender] {
			return nil, ErrNotMember.With("%s is not in group %s", sender, k.ID)
		}
		return g.list, nil
	}
}

func (c *Core) openConv(k ConvKey) *Conv {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cv := c.convs[k]; cv != nil {
		return cv
	}
	cv := &Conv{key: k}
	c.convs[k] = cv
	if k.Kind == Direct {
		c.users[k.ID].direct[k] = cv
		c.users[k.Peer].direct[k] = cv
	}
	return cv
}

// countLost counts a lost message and the deliveries it owed: at once to
// the members but the sender who have logged in, and to each other member
// when it first logs in (Attach), never if it never does, as a load client
// expects nothing of a user that never got online. A chatroom's members
// joined, so logged in: all are counted at once.
func (c *Core) countLost(kind Kind, sender string, members []string, others int) {
	c.metrics.faultLostMsgs[kind].Inc()
	if kind == Room {
		c.metrics.faultLostDeliv[kind].Add(float64(others))
		return
	}
	now := 0
	c.mu.Lock()
	for _, u := range members {
		if u == sender {
			continue
		}
		if usr := c.users[u]; usr != nil && !usr.everOn {
			usr.owedLost[kind]++
			continue
		}
		now++
	}
	c.mu.Unlock()
	c.metrics.faultLostDeliv[kind].Add(float64(now))
}

// batches reports whether m is stored with its conversation's batch (the
// batch fault): a kept message of a client's.
func (c *Core) batches(m *Message) bool {
	return !m.System && m.Conv.Kind.keepsHistory() && c.faults.cfg.BatchDrop > 0
}
