package plan

import (
	"iter"
	"math"
	"slices"
	"sort"
	"time"
)

// A segment is a run of messages into one conversation by senders taking
// turns: message i is sent by Senders[i mod len(Senders)] and is that
// sender's number i/len(Senders)+1 in the conversation.
type segment struct {
	conv    uint32
	senders []uint32
	count   uint32
}

func (s *segment) at(i uint32) Msg {
	n := uint32(len(s.senders))
	return Msg{Sender: s.senders[i%n], Conv: s.conv, N: i/n + 1}
}

// A lane is an ordered list of segments: one sender's queue (OpenIM's
// integration test), or one conversation's turn-taking senders.
type lane []segment

func (l lane) len() uint64 {
	var n uint64
	for _, s := range l {
		n += uint64(s.count)
	}
	return n
}

// laneCursor walks a lane without expanding it.
type laneCursor struct {
	seg, off uint32
}

func (c *laneCursor) next(l lane) (Msg, bool) {
	for int(c.seg) < len(l) && c.off >= l[c.seg].count {
		c.seg, c.off = c.seg+1, 0
	}
	if int(c.seg) >= len(l) {
		return Msg{}, false
	}
	m := l[c.seg].at(c.off)
	c.off++
	return m, true
}

// Stream is one class's messages. Open pacing: round r takes the r-th
// message of every lane that still has one (the way a pool of concurrent
// senders drains its users' work), one every Interval. Closed pacing
// (InFlight > 0): each sender sends its own messages as fast as they are
// acknowledged, InFlight at a time, until they run out or Until passes.
type Stream struct {
	lanes    []lane
	total    uint64
	Interval time.Duration // open: between two messages of the stream
	ramp     *ramp         // open, ramping: replaces Interval
	Burst    bool          // open: each second's messages fall due together at its start
	// phase shifts an open stream's messages by this share of a message's
	// slot, so that classes of one rate do not send in the same instant.
	phase float64
	// start is when an open stream's first message falls due, after
	// sending begins (a class's startAt).
	start time.Duration
	// instant: every message falls due at start (a class's burstAt),
	// each sender writing its own back to back.
	instant bool
	// lead: the first lead messages (a class's burst, its first messages
	// of every lane) fall due at start, the rate's after them.
	lead int64
	// online: its rate follows its conversations online (ramp), each
	// lane sending while its sender is (presence_pace.go).
	online bool
	// joinAt is when each lane's sender is online to write (a timed
	// login): the lane takes turns from the first round due then (nil:
	// every lane from the start).
	joinAt []time.Duration
	// away is each lane's spells logged out (nil: none's sender goes
	// away): it passes its turns then.
	away     [][]spellTime
	InFlight int           // closed: messages in flight per sender
	Until    time.Duration // closed and unbounded: stop sending after this long
	bySender map[uint32][]segment
}

func newStream(lanes []lane) *Stream {
	s := &Stream{lanes: lanes}
	for _, l := range lanes {
		s.total += l.len()
	}
	return s
}

// Total is the number of messages the stream plans (0 when only a duration
// bounds it).
func (s *Stream) Total() uint64 { return s.total }

func (s *Stream) due(k int64) time.Duration {
	if s.instant || k < s.lead {
		return s.start
	}
	x := float64(k-s.lead) + s.phase
	d := time.Duration(x * float64(s.Interval))
	if s.ramp != nil {
		d = s.ramp.due(x)
	}
	d += s.start
	if s.Burst {
		d = d.Truncate(time.Second)
	}
	return d
}

// Length is how long the stream sends: open at its pace, closed bounded by
// its time (0 when only its counts bound it).
func (s *Stream) Length() time.Duration {
	switch {
	case !s.Open():
		return s.Until
	case s.total == 0:
		return 0
	}
	return s.due(int64(s.total) - 1)
}

// DueBefore counts the open stream's messages due before offset t from
// the start of sending (0 for a closed stream, which has no schedule).
func (s *Stream) DueBefore(t time.Duration) int64 {
	if !s.Open() || t <= 0 {
		return 0
	}
	return int64(sort.Search(int(s.total), func(k int) bool { return s.due(int64(k)) >= t }))
}

// Start is when an open stream begins: its class's startAt.
func (s *Stream) Start() time.Duration { return s.start }

// Open reports open pacing.
func (s *Stream) Open() bool { return s.InFlight == 0 }

// Messages yields the open stream's messages in global order with their
// offset from the start of sending. It holds one cursor per lane.
func (s *Stream) Messages() iter.Seq2[Msg, time.Duration] {
	return func(yield func(Msg, time.Duration) bool) {
		cur := make([]laneCursor, len(s.lanes))
		// Lanes that ran out leave the round, in order: a round costs the
		// lanes still sending, not all of them. Lanes whose sender is not
		// online yet join at the first round due after its login (or when
		// nothing else is left to send).
		var live, waiting []int
		for i := range s.lanes {
			if s.joinAt != nil && s.joinAt[i] > 0 {
				waiting = append(waiting, i)
			} else {
				live = append(live, i)
			}
		}
		sort.SliceStable(waiting, func(a, b int) bool { return s.joinAt[waiting[a]] < s.joinAt[waiting[b]] })
		var k int64
		for len(live) > 0 || len(waiting) > 0 {
			for len(waiting) > 0 && (len(live) == 0 || s.joinAt[waiting[0]] <= s.due(k)) {
				live, waiting = append(live, waiting[0]), waiting[1:]
			}
			// A lane whose sender is away passes its turn, unless every
			// lane left is: then it is due anyway, sent on the return.
			all := k
			for pass := 0; pass < 2 && k == all; pass++ {
				next := live[:0]
				for _, i := range live {
					if pass == 0 && s.awayAt(i, s.due(k)) {
						next = append(next, i)
						continue
					}
					m, ok := cur[i].next(s.lanes[i])
					if !ok {
						continue
					}
					next = append(next, i)
					if !yield(m, s.due(k)) {
						return
					}
					k++
				}
				live = next
				if len(live) == 0 {
					break
				}
			}
		}
	}
}

// SenderCursor walks the messages one sender sends in a closed stream:
// round r is the r-th message of each of its conversations, in turn.
type SenderCursor struct {
	u    uint32
	segs []segment
	r    uint32
	i    int
	more bool
}

// Cursor starts sender u's messages; ok is false when u sends nothing here.
func (s *Stream) Cursor(u uint32) (c *SenderCursor, ok bool) {
	segs, ok := s.bySender[u]
	return &SenderCursor{u: u, segs: segs}, ok
}

// Next returns the sender's next message.
func (c *SenderCursor) Next() (Msg, bool) {
	for {
		if c.i == len(c.segs) {
			if !c.more {
				return Msg{}, false
			}
			c.r, c.i, c.more = c.r+1, 0, false
		}
		sg := &c.segs[c.i]
		c.i++
		if c.r < sg.count/uint32(len(sg.senders)) {
			c.more = true
			return Msg{Sender: c.u, Conv: sg.conv, N: c.r + 1}, true
		}
	}
}

// index prepares Sender: each sender's segments. Closed streams only.
func (s *Stream) index() {
	if s.Open() {
		return
	}
	s.bySender = map[uint32][]segment{}
	for _, l := range s.lanes {
		for _, sg := range l {
			for _, u := range sg.senders {
				s.bySender[u] = append(s.bySender[u], sg)
			}
		}
	}
}

// PlannedFor counts the messages senders [lo, hi) send in the stream (0 for
// a closed stream bounded by time only), without walking them.
func (s *Stream) PlannedFor(lo, hi uint32) int64 {
	if !s.Open() && s.Until > 0 {
		return 0
	}
	var n int64
	for _, l := range s.lanes {
		for _, sg := range l {
			S := uint32(len(sg.senders))
			for i, u := range sg.senders {
				if u < lo || u >= hi {
					continue
				}
				n += int64(sg.count / S)
				if s.Open() && uint32(i) < sg.count%S {
					n++ // open: senders take turns, the first ones once more
				}
			}
		}
	}
	return n
}

// peakRate is an open stream's highest rate, messages a second.
func (s *Stream) peakRate() float64 {
	switch {
	case s.ramp != nil:
		rate := s.ramp.start
		for _, st := range s.ramp.stages {
			rate = max(rate, st.r0, st.r1)
		}
		return rate
	case s.Interval > 0:
		return float64(time.Second) / float64(s.Interval)
	}
	return 0
}

// senders are the users who send in the stream.
func (s *Stream) senders() map[uint32]struct{} {
	out := map[uint32]struct{}{}
	for _, l := range s.lanes {
		for _, sg := range l {
			for _, u := range sg.senders {
				out[u] = struct{}{}
			}
		}
	}
	return out
}

// Window is how many messages a sender of the stream has unanswered at
// most: InFlight for a closed stream; for an open one in bursts, each
// second's messages of a sender, written back to back as wkstress writes
// them (at most 1,000); else 1, each message after the last one's answer.
func (s *Stream) Window() int {
	switch {
	case !s.Open():
		return s.InFlight
	case s.instant:
		return int(min(1000, max(1, s.busiestSender())))
	case s.lead > 0:
		return int(min(1000, max(1, s.busiestLead())))
	case !s.Burst:
		return 1
	}
	senders := s.senders()
	if len(senders) == 0 {
		return 1
	}
	return int(min(1000, max(1, math.Ceil(s.peakRate()/float64(len(senders))))))
}

// BusiestSenderIn is the most messages a single user of the plan may send
// within window, over all streams: an open stream's peak rate shared by
// its senders, a closed one's busiest sender's whole count (it may send
// them all as fast as they are acknowledged); +Inf for a closed stream
// bounded by time only. A server that limits requests per client in a
// window (Wildfire's client.request_rate_limit) is checked against it.
func (p *Plan) BusiestSenderIn(window time.Duration) float64 {
	per := map[uint32]float64{}
	for _, s := range p.Streams {
		if !s.Open() && s.Until > 0 {
			return math.Inf(1)
		}
		if !s.Open() || s.instant { // as fast as answered, or all at once: a sender's whole count in any window
			for u, n := range s.perSender() {
				per[u] += n
			}
			continue
		}
		if s.lead > 0 {
			for u, n := range s.leadPerSender() {
				per[u] += n
			}
		}
		if r := s.peakRate(); r > 0 {
			senders := s.senders()
			for u := range senders {
				per[u] += r / float64(len(senders)) * window.Seconds()
			}
		}
	}
	most := 0.0
	for _, n := range per {
		most = max(most, n)
	}
	return most
}

// perSender counts each sender's messages in the stream.
func (s *Stream) perSender() map[uint32]float64 {
	per := map[uint32]float64{}
	for _, l := range s.lanes {
		for _, sg := range l {
			S := uint32(len(sg.senders))
			for i, u := range sg.senders {
				n := sg.count / S
				if uint32(i) < sg.count%S {
					n++
				}
				per[u] += float64(n)
			}
		}
	}
	return per
}

// leadPerSender counts each sender's messages in the stream's burst at
// its start: each lane's first lead/lanes, its senders taking turns.
func (s *Stream) leadPerSender() map[uint32]float64 {
	per := map[uint32]float64{}
	each := s.lead / int64(max(len(s.lanes), 1))
	for _, l := range s.lanes {
		if len(l) == 0 {
			continue
		}
		S := int64(len(l[0].senders))
		for i, u := range l[0].senders {
			n := each / S
			if int64(i) < each%S {
				n++
			}
			per[u] += float64(n)
		}
	}
	return per
}

// busiestLead is the most messages one sender writes in the burst.
func (s *Stream) busiestLead() float64 {
	most := 0.0
	for _, n := range s.leadPerSender() {
		most = max(most, n)
	}
	return most
}

// busiestSender is the most messages one sender of the stream sends.
func (s *Stream) busiestSender() float64 {
	most := 0.0
	for _, n := range s.perSender() {
		most = max(most, n)
	}
	return most
}

// spellTime is a spell logged out: from At for For.
type spellTime struct{ at, until time.Duration }

// awayAt reports whether lane i's sender is away at t.
func (s *Stream) awayAt(i int, t time.Duration) bool {
	if s.away == nil {
		return false
	}
	for _, sp := range s.away[i] {
		if t >= sp.at && t < sp.until {
			return true
		}
	}
	return false
}

// passTurnsAway has the stream's lanes whose senders go away for a spell
// pass their turns while they are away (an open stream's: a closed one or
// a burst at an instant is refused such senders).
func (s *Stream) passTurnsAway(spells []Spell) {
	if len(spells) == 0 {
		return
	}
	by := map[uint32][]spellTime{}
	for _, sp := range spells {
		for _, u := range sp.Users {
			by[u] = append(by[u], spellTime{sp.At, sp.At + sp.For})
		}
	}
	for i, l := range s.lanes {
		for _, sg := range l {
			for _, u := range sg.senders {
				if w := by[u]; w != nil {
					if s.away == nil {
						s.away = make([][]spellTime, len(s.lanes))
					}
					s.away[i] = append(s.away[i], w...)
				}
			}
		}
		if s.away != nil {
			s.away[i] = mergeSpells(s.away[i])
		}
	}
}

// mergeSpells joins spells that overlap or touch: a lane with two senders
// away, or one away twice at once, is away once.
func mergeSpells(w []spellTime) []spellTime {
	if len(w) < 2 {
		return w
	}
	slices.SortFunc(w, func(a, b spellTime) int { return int(a.at - b.at) })
	out := w[:1]
	for _, sp := range w[1:] {
		if last := &out[len(out)-1]; sp.at <= last.until {
			last.until = max(last.until, sp.until)
			continue
		}
		out = append(out, sp)
	}
	return out
}
