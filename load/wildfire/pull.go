package wildfire

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// feed is one pull type's state on a connection: the numbers notified and
// not yet pulled, and the pull under way.
type feed struct {
	notified  notices
	pulling   bool
	again     bool          // notified or asked again while pulling
	loginHead int64         // the head the CONNACK gave: below it, a login's catch-up
	recover   bool          // a catch-up recovers what the user should have had (a re-login)
	waiters   []func(error) // Syncs waiting for the next pull to be sent
	armed     []armed       // Syncs riding the chain until it reaches their head
}

// armed is a Sync whose pull was sent: the first answer fixes the head it
// waits for, the server's head then (at least its head when asked).
type armed struct {
	done func(error)
	head int64 // 0 until the first answer
}

func (c *conn) startFeeds(head int64, recover bool) {
	c.feeds[wire.PullNormal].loginHead = head
	c.feeds[wire.PullNormal].recover = recover
}

// notified records an MN's number and pulls, or asks the pull under way to
// go on once it is answered: MN bursts share one outstanding MP.
func (c *conn) notified(t int32, head int64) {
	c.fmu.Lock()
	f := &c.feeds[t]
	if c.d.heads[t] == nil || head <= c.d.heads[t][c.user].Load() {
		c.fmu.Unlock()
		return
	}
	f.notified.add(head)
	start := !f.pulling
	f.pulling = true
	f.again = !start
	c.fmu.Unlock()
	if start {
		c.pull(t)
	}
}

// pull asks for everything after the user's head of type t.
func (c *conn) pull(t int32) {
	c.fmu.Lock()
	f := &c.feeds[t]
	for _, w := range f.waiters {
		f.armed = append(f.armed, armed{done: w})
	}
	f.waiters = nil
	c.fmu.Unlock()
	id := c.d.heads[t][c.user].Load()
	var buf [24]byte
	plain := wire.AppendPullRequest(buf[:0], id, t)
	if err := c.request(wire.TopicPullMessage, plain, func(a wire.Puback, err error) { c.pulled(t, id, a, err) }); err != nil {
		c.endChain(t, err)
	}
}

// pullScratch is one answer's decrypted result, what was read of it and
// its arrivals, whose texts alias the result: nothing keeps an arrival's
// Text once Arrive returns, and the next answer reuses it all.
type pullScratch struct {
	plain    []byte
	res      wire.PullResult
	arrivals []verify.Arrival
}

var pullScratches = sync.Pool{New: func() any { return new(pullScratch) }}

// read decrypts an MP's answer and reads the result in place.
func (s *pullScratch) read(ciph *wire.Cipher, a wire.Puback) error {
	if !a.Code.OK() {
		return fmt.Errorf("MP refused: code %d %s", a.Code, a.Code)
	}
	plain, err := a.AppendResult(s.plain[:0], ciph, wire.HourNow())
	if err != nil {
		return err
	}
	s.plain = plain
	return s.res.Decode(plain)
}

// pulled classifies what a pull brought and goes on while the server has
// more (current < head) or more was notified meanwhile.
func (c *conn) pulled(t int32, id int64, a wire.Puback, err error) {
	s := pullScratches.Get().(*pullScratch)
	defer pullScratches.Put(s)
	if err == nil {
		err = s.read(c.s.cipher, a)
	}
	if err != nil {
		c.endChain(t, fmt.Errorf("pull of %s: %w", c.uid, err))
		return
	}
	msgs, cur, head := s.res.Messages, s.res.Current, s.res.Head
	consecutive := cur-id == int64(len(msgs))
	arrivals := s.arrivals[:0]
	c.fmu.Lock()
	f := &c.feeds[t]
	for i := range msgs {
		seq := msgs[i].MessageID
		if consecutive {
			seq = id + 1 + int64(i)
		}
		a, ok := c.d.arrival(c.user, &msgs[i])
		if !ok {
			continue
		}
		if !f.notified.has(seq) {
			// Found without a notify: a login's catch-up below the
			// CONNACK's head, else a notify the server never sent.
			a.Pulled = true
			a.GapFill = seq > f.loginHead || f.recover
		}
		arrivals = append(arrivals, a)
	}
	f.notified.dropUpTo(cur)
	hd := &c.d.heads[t][c.user]
	if cur > hd.Load() {
		hd.Store(cur)
	}
	if held := &c.d.held[c.user]; t == wire.PullNormal && !emptyFeed(id, len(msgs), cur, head) && cur > held.Load() {
		held.Store(cur)
	}
	// A Sync is answered once the chain reaches the head the server gave
	// in the first answer after it was asked, even while MNs keep the
	// chain going: under steady traffic the chain may never go idle, and a
	// receiver a page behind may never see cur == head.
	paging := cur > id && cur < head
	more := paging || f.again
	f.again = false
	var waiters []func(error)
	kept := f.armed[:0]
	for _, w := range f.armed {
		if w.head == 0 {
			w.head = head
		}
		// An answer that brought nothing new ends the wait too: the
		// server has nothing after the client's number, whatever its head.
		if cur >= w.head || cur <= id {
			waiters = append(waiters, w.done)
		} else {
			kept = append(kept, w)
		}
	}
	clear(f.armed[len(kept):])
	f.armed = kept
	if len(kept) > 0 {
		more = true
	}
	if !more {
		f.pulling = false
	}
	c.fmu.Unlock()
	for _, a := range arrivals {
		c.h.Arrive(a)
	}
	s.arrivals = arrivals
	for _, w := range waiters {
		w(nil)
	}
	if more {
		c.pull(t)
	}
}

// emptyFeed is the real server's answer to a pull from 0 of a feed with no
// message: current and head 2 rather than 0 (im-server 1.2.4,
// MemoryMessagesStore.fetchMessage), while its CONNACK gives that user's
// head as 0. The next pull starts at 2, as the SDK's does; no message is 2.
func emptyFeed(id int64, n int, cur, head int64) bool {
	return id == 0 && n == 0 && cur == 2 && head == 2
}

func (c *conn) endChain(t int32, err error) {
	c.fmu.Lock()
	f := &c.feeds[t]
	f.pulling, f.again = false, false
	waiters := f.waiters
	for _, w := range f.armed {
		waiters = append(waiters, w.done)
	}
	f.armed, f.waiters = nil, nil
	c.fmu.Unlock()
	for _, w := range waiters {
		w(err)
	}
}

// Sync implements engine.HeadSyncer: pull everything after the user's head
// (and its chatroom's, once joined); done follows when both chains end.
func (c *conn) Sync(recover bool, done func(error)) error {
	types := []int32{wire.PullNormal}
	c.fmu.Lock()
	if c.joined {
		types = append(types, wire.PullChatroom)
	}
	left := len(types)
	var first error
	one := func(err error) {
		c.fmu.Lock()
		left--
		if first == nil {
			first = err
		}
		last := left == 0
		c.fmu.Unlock()
		if last {
			done(first)
		}
	}
	var start []int32
	for _, t := range types {
		f := &c.feeds[t]
		f.recover = f.recover || recover
		f.waiters = append(f.waiters, one)
		if f.pulling {
			f.again = true
		} else {
			f.pulling = true
			start = append(start, t)
		}
	}
	c.fmu.Unlock()
	for _, t := range start {
		c.pull(t)
	}
	return nil
}

var errHeadSync = errors.New("Wildfire numbers messages per user: the engine syncs by head")

// Pull implements engine.Conn; Wildfire's arrivals carry no conversation
// seq, so the engine never asks for one (it calls Sync).
func (c *conn) Pull(map[uint32][]uint64, bool, func(error)) error { return errHeadSync }

// MaxSeqs implements engine.Conn; see Pull.
func (c *conn) MaxSeqs(func(map[uint32]uint64, error)) error { return errHeadSync }

// arrival resolves a pulled message to the plan; ok is false for a
// conversation that is not the plan's. Wildfire carries no create time of
// the sender's: the body's own is the only one. The verifier parses the text.
func (d *Driver) arrival(u uint32, m *wire.PulledMessage) (verify.Arrival, bool) {
	var conv uint32
	switch m.ConvType {
	case wire.ConvGroup:
		g, ok := d.groupOf[string(m.ConvTarget)]
		if !ok {
			return verify.Arrival{}, false
		}
		conv = g
	case wire.ConvChatroom:
		r, ok := d.roomOf[string(m.ConvTarget)]
		if !ok {
			return verify.Arrival{}, false
		}
		conv = r
	case wire.ConvPrivate:
		peer := d.plan.ParseUserID(string(m.FromUser))
		if peer < 0 {
			return verify.Arrival{}, false
		}
		s, ok := d.plan.SingleConv(u, uint32(peer))
		if !ok {
			return verify.Arrival{}, false
		}
		conv = s
	default:
		return verify.Arrival{}, false
	}
	return verify.Arrival{Conv: conv, Sender: d.plan.ParseUserID(string(m.FromUser)), Text: m.Text}, true
}

// notices is the numbers notified and not yet pulled, ascending and
// unique. They come in ascending order (an MN per message, in the order
// the server numbered them), so an add appends and an answer drops a
// prefix: a map of them cost a hash insert and delete per delivery.
type notices []int64

func (n *notices) add(x int64) {
	s := *n
	if len(s) == 0 || x > s[len(s)-1] {
		*n = append(s, x)
		return
	}
	if i, found := slices.BinarySearch(s, x); !found {
		*n = slices.Insert(s, i, x)
	}
}

func (n notices) has(x int64) bool {
	_, found := slices.BinarySearch(n, x)
	return found
}

// dropUpTo removes the numbers up to x: those the answer reaching x
// brought, or the server skipped.
func (n *notices) dropUpTo(x int64) {
	s := *n
	i, found := slices.BinarySearch(s, x)
	if found {
		i++
	}
	*n = append(s[:0], s[i:]...)
}
