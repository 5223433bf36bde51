package wildfire

import (
	"sync"
	"sync/atomic"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// Feed types: NotifyMessage.type and PullMessageRequest.type.
const (
	feedNormal = int(wire.PullNormal)   // private and group messages
	feedRoom   = int(wire.PullChatroom) // chatroom messages
	feedTypes  = 2
)

// feed is one user's messages to pull, per type: seqs from 1, consecutive,
// the oldest trimmed away as the client's pulls say it has them.
type feed struct {
	mu     sync.Mutex
	q      [feedTypes]queue
	conns  []*conn       // the user's logged-in MQTT connections, told of what is filed
	online *atomic.Int64 // the front end's count of feeds with a connection
}

// queue holds seqs head-len(msgs)+1 … head.
type queue struct {
	head int64
	msgs []*core.Message
}

func (q *queue) add(m *core.Message) int64 {
	q.head++
	q.msgs = append(q.msgs, m)
	return q.head
}

// trim drops the messages up to seq id, returning how many.
func (q *queue) trim(id int64) int {
	first := q.head - int64(len(q.msgs)) + 1
	if id < first {
		return 0 // also a negative id, which would wrap below
	}
	n := int(min(id-first+1, int64(len(q.msgs))))
	if n == 0 {
		return 0
	}
	clear(q.msgs[:n])
	q.msgs = q.msgs[n:]
	if len(q.msgs) == 0 {
		q.msgs = nil
	}
	return n
}

func feedType(m *core.Message) int {
	if m.Conv.Kind == core.Room {
		return feedRoom
	}
	return feedNormal
}

// keep gives user a feed, if it has none, and has the core hand it what
// the user misses while offline.
func (f *FrontEnd) keep(user string) *feed {
	f.mu.RLock()
	fd := f.feeds[user]
	f.mu.RUnlock()
	if fd != nil {
		return fd
	}
	f.mu.Lock()
	if fd = f.feeds[user]; fd == nil {
		fd = &feed{online: &f.online}
		f.feeds[user] = fd
	}
	f.mu.Unlock()
	f.c.KeepFeed(user)
	return fd
}

func (f *FrontEnd) feedOf(user string) *feed {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.feeds[user]
}

// fileOffline is the core's feed hook: a message for members with no
// connection, filed without an MN, except to a connection that logged in
// since the core looked (it is told, as any connection of the feed).
func (f *FrontEnd) fileOffline(p *core.Push, offline []string) {
	if !ours(p.Msg) {
		return
	}
	t := feedType(p.Msg)
	for _, u := range offline {
		fd := f.feedOf(u)
		if fd == nil {
			continue
		}
		fd.mu.Lock()
		seq := fd.q[t].add(p.Msg)
		for _, c := range fd.conns {
			c.notifyLocked(t, seq, p.Msg)
		}
		fd.mu.Unlock()
		f.Metrics.filed(t, viaOffline)
	}
}

// attach queues c's CONNACK, with the head of the normal feed, and
// registers c with the feed, both at once: whatever is filed later is told
// to c, after the CONNACK.
func (fd *feed) attach(c *conn) error {
	fd.mu.Lock()
	defer fd.mu.Unlock()
	ack, err := connack(fd.q[feedNormal].head)
	if err != nil {
		return err
	}
	c.put(ack)
	if len(fd.conns) == 0 {
		fd.online.Add(1)
	}
	fd.conns = append(fd.conns, c)
	return nil
}

func (fd *feed) detach(c *conn) {
	fd.mu.Lock()
	defer fd.mu.Unlock()
	for i, o := range fd.conns {
		if o == c {
			last := len(fd.conns) - 1
			fd.conns[i] = fd.conns[last]
			fd.conns[last] = nil
			fd.conns = fd.conns[:last]
			if last == 0 {
				fd.online.Add(-1)
			}
			break
		}
	}
}
