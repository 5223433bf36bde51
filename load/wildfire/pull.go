package wildfire

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// feed is one pull type's state on a connection: the numbers notified and
// not yet pulled, and the pull under way.
type feed struct {
	notified  map[int64]struct{}
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
	if f.notified == nil {
		f.notified = map[int64]struct{}{}
	}
	f.notified[head] = struct{}{}
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
	plain, err := proto.Marshal(&pb.PullMessageRequest{Id: proto.Int64(id), Type: proto.Int32(t)})
	if err == nil {
		err = c.request(wire.TopicPullMessage, plain, func(a wire.Puback, err error) { c.pulled(t, id, a, err) })
	}
	if err != nil {
		c.endChain(t, err)
	}
}

// pulled classifies what a pull brought and goes on while the server has
// more (current < head) or more was notified meanwhile.
func (c *conn) pulled(t int32, id int64, a wire.Puback, err error) {
	var res pb.PullMessageResult
	if err == nil && !a.Code.OK() {
		err = fmt.Errorf("MP refused: code %d %s", a.Code, a.Code)
	}
	if err == nil {
		var raw []byte
		if raw, err = a.Result(c.s.cipher, wire.HourNow()); err == nil {
			err = proto.Unmarshal(raw, &res)
		}
	}
	if err != nil {
		c.endChain(t, fmt.Errorf("pull of %s: %w", c.uid, err))
		return
	}
	msgs, cur, head := res.GetMessage(), res.GetCurrent(), res.GetHead()
	consecutive := cur-id == int64(len(msgs))
	arrivals := make([]verify.Arrival, 0, len(msgs))
	c.fmu.Lock()
	f := &c.feeds[t]
	for i, m := range msgs {
		seq := m.GetMessageId()
		if consecutive {
			seq = id + 1 + int64(i)
		}
		a, ok := c.d.arrival(c.user, m)
		if !ok {
			continue
		}
		if _, was := f.notified[seq]; was {
			delete(f.notified, seq)
		} else {
			// Found without a notify: a login's catch-up below the
			// CONNACK's head, else a notify the server never sent.
			a.Pulled = true
			a.GapFill = seq > f.loginHead || f.recover
		}
		arrivals = append(arrivals, a)
	}
	for seq := range f.notified {
		if seq <= cur {
			delete(f.notified, seq)
		}
	}
	hd := &c.d.heads[t][c.user]
	if cur > hd.Load() {
		hd.Store(cur)
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
	for _, w := range waiters {
		w(nil)
	}
	if more {
		c.pull(t)
	}
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
// the sender's: the body's own is the only one.
func (d *Driver) arrival(u uint32, m *pb.Message) (verify.Arrival, bool) {
	from := m.GetFromUser()
	cv := m.GetConversation()
	var conv uint32
	switch cv.GetType() {
	case wire.ConvGroup:
		g, ok := d.groupOf[cv.GetTarget()]
		if !ok {
			return verify.Arrival{}, false
		}
		conv = g
	case wire.ConvChatroom:
		r, ok := d.roomOf[cv.GetTarget()]
		if !ok {
			return verify.Arrival{}, false
		}
		conv = r
	case wire.ConvPrivate:
		peer := d.plan.ParseUserID(from)
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
	text := []byte(m.GetContent().GetSearchableContent())
	return verify.Arrival{Conv: conv, Sender: d.plan.ParseUserID(from), Text: text, Parsed: verify.Parse(text)}, true
}
