package core

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"sync"
	"time"
)

// Message is a stored chat message. Field meanings follow OpenIM's MsgData.
type Message struct {
	ConvID           string
	Seq              int64
	SendID           string
	RecvID           string
	GroupID          string
	ClientMsgID      string
	ServerMsgID      string
	SenderPlatformID int32
	SenderNickname   string
	SessionType      int32
	MsgFrom          int32
	ContentType      int32
	Content          []byte
	SendTime         int64
	CreateTime       int64
	Status           int32
	Ex               string
}

// Conv is one conversation: its seq counter is the length of its history.
type Conv struct {
	mu   sync.Mutex
	id   string
	msgs []*Message
}

// SingleConvID is OpenIM's id of a one-to-one conversation: the two user ids
// sorted as strings.
func SingleConvID(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return "si_" + a + "_" + b
}

// Push is one stored message on its way to the online recipients. Protocol
// fronts cache their encoded frame here, once per wire variant, so a group
// fan-out encodes each variant once.
type Push struct {
	Msg    *Message
	frames [4]struct {
		once sync.Once
		b    []byte
		err  error
	}
}

// Frame returns the encoding of variant v (0..3), made once by enc.
func (p *Push) Frame(v int, enc func(*Message) ([]byte, error)) ([]byte, error) {
	f := &p.frames[v]
	f.once.Do(func() { f.b, f.err = enc(p.Msg) })
	return f.b, f.err
}

type recipient struct {
	user string
	sess *Session
}

// Send validates, stores and fans out one message, returning it as stored
// (seq, server id and send time filled). Like OpenIM, the sender's own
// connections get the message too (sender sync); faults never touch those.
func (c *Core) Send(m *Message) (*Message, *Error) {
	if m.SendID == "" || m.Content == nil {
		return nil, errf(CodeArgs, "ArgsError", "sendID and content are required")
	}
	kind := "single"
	var (
		members []string
		targets []recipient
		convID  string
	)
	c.mu.RLock()
	switch m.SessionType {
	case SessionSingle:
		if c.users[m.RecvID] == nil {
			c.mu.RUnlock()
			c.metrics.msgFailed(kind)
			return nil, errf(CodeUserNotFound, "UserIDNotFoundError", "recvID %s", m.RecvID)
		}
		convID = SingleConvID(m.SendID, m.RecvID)
		members = []string{m.RecvID, m.SendID}
	case SessionGroup:
		kind = "group"
		g := c.groups[m.GroupID]
		if g == nil {
			c.mu.RUnlock()
			c.metrics.msgFailed(kind)
			return nil, errf(CodeGroupNotFound, "GroupIDNotFound", "group %s", m.GroupID)
		}
		if !g.members[m.SendID] {
			c.mu.RUnlock()
			c.metrics.msgFailed(kind)
			return nil, errf(CodeNotInGroup, "NotInGroupYetError", "%s is not in group %s", m.SendID, m.GroupID)
		}
		convID = "sg_" + g.id
		members = g.list
	default:
		c.mu.RUnlock()
		return nil, errf(CodeArgs, "ArgsError", "unknown sessionType %d", m.SessionType)
	}
	for _, u := range members {
		for _, s := range c.online[u] {
			targets = append(targets, recipient{u, s})
		}
	}
	cv := c.convs[convID]
	c.mu.RUnlock()
	if cv == nil {
		cv = c.openConv(convID, m)
	}

	now := time.Now()
	m.ConvID = convID
	if m.SendTime == 0 {
		m.SendTime = now.UnixMilli()
	}
	sum := md5.Sum([]byte(now.Format("2006-01-02 15:04:05") + "-" + m.SendID + "-" + strconv.FormatInt(now.UnixNano(), 10)))
	m.ServerMsgID = hex.EncodeToString(sum[:])

	if c.faults.lose() {
		c.metrics.lost(kind, len(members)-1)
		c.metrics.msgSucceeded(kind)
		return m, nil // acknowledged, never stored, never pushed
	}

	cv.mu.Lock()
	m.Seq = int64(len(cv.msgs)) + 1
	m.Status = 2
	cv.msgs = append(cv.msgs, m)
	p := &Push{Msg: m}
	for _, t := range targets {
		c.deliver(t.sess, p, t.user == m.SendID, kind)
	}
	cv.mu.Unlock()
	c.metrics.msgSucceeded(kind)
	c.metrics.stored.Inc()
	return m, nil
}

func (c *Core) openConv(id string, m *Message) *Conv {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cv := c.convs[id]; cv != nil {
		return cv
	}
	cv := &Conv{id: id}
	c.convs[id] = cv
	if m.SessionType == SessionSingle {
		c.users[m.SendID].singles[id] = cv
		c.users[m.RecvID].singles[id] = cv
	}
	return cv
}

// MaxSeqs returns the highest seq of every conversation of user that has
// messages (OpenIM's GetMaxSeq); min seqs are always 1 here.
func (c *Core) MaxSeqs(userID string) map[string]int64 {
	c.mu.RLock()
	u := c.users[userID]
	var convs []*Conv
	if u != nil {
		for gid := range u.groups {
			if cv := c.convs["sg_"+gid]; cv != nil {
				convs = append(convs, cv)
			}
		}
		for _, cv := range u.singles {
			convs = append(convs, cv)
		}
	}
	c.mu.RUnlock()
	out := make(map[string]int64, len(convs))
	for _, cv := range convs {
		cv.mu.Lock()
		if n := len(cv.msgs); n > 0 {
			out[cv.id] = int64(n)
		}
		cv.mu.Unlock()
	}
	return out
}

// Pull returns messages begin..end of a conversation the user belongs to,
// clamped to what exists; when the range is longer than num, only its last
// num (OpenIM's GetMsgBySeqsRange). isEnd is maxSeq <= end.
func (c *Core) Pull(userID, convID string, begin, end, num int64) (msgs []*Message, isEnd bool, endSeq int64) {
	c.mu.RLock()
	cv := c.convs[convID]
	allowed := false
	if u := c.users[userID]; u != nil && cv != nil {
		if len(convID) > 3 && convID[:3] == "sg_" {
			allowed = u.groups[convID[3:]]
		} else {
			_, allowed = u.singles[convID]
		}
	}
	c.mu.RUnlock()
	if !allowed || num <= 0 {
		return nil, true, 0
	}
	cv.mu.Lock()
	defer cv.mu.Unlock()
	maxSeq := int64(len(cv.msgs))
	begin = max(begin, 1)
	end = min(end, maxSeq)
	if end-begin+1 > num {
		begin = end - num + 1
	}
	for s := begin; s <= end; s++ {
		msgs = append(msgs, cv.msgs[s-1])
	}
	c.metrics.pulled.Add(float64(len(msgs)))
	return msgs, maxSeq <= end, end
}
