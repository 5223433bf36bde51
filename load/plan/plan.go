// Package plan is the protocol-neutral description of a test: who the users
// are, who is friends with whom, which groups exist, who logs in when, and
// which messages are sent in which order at which pace. A workload
// (workload.go) is a list of classes, each of a registered kind (one file a
// kind); it builds into a Plan. A plan is a pure function of its parameters,
// so every worker and every process (one per segment) derives the
// same one without talking to each other, and its messages are generated as
// the run goes: nothing in it grows with the number of messages.
package plan

import (
	"encoding/json"
	"fmt"
	"iter"
	"strconv"
	"sync"
	"time"
)

// ConvKind tells a one-to-one conversation from a group and a chatroom.
type ConvKind uint8

const (
	Single ConvKind = 1
	Group  ConvKind = 3
	Room   ConvKind = 4 // a chatroom: members join at run time, no history
)

func (k ConvKind) String() string {
	switch k {
	case Group:
		return "group"
	case Room:
		return "room"
	}
	return "single"
}

// Login says when a user comes online.
type Login uint8

const (
	Never     Login = iota // registered, never logs in
	Immediate              // online before sending starts
	Late                   // logs in after sending ends and pulls what it missed
	Timed                  // logs in at its LoginAt after sending begins, pulling what it missed
)

// Spell is a time users spend logged out: they log out At after sending
// begins and log in again For later, pulling what they missed.
type Spell struct {
	At, For time.Duration
	Users   []uint32
}

// Conv is a conversation: two friends, a group, or a chatroom.
type Conv struct {
	Kind  ConvKind
	Class uint16    // the workload class that made it: its index in Plan.Streams
	Peers [2]uint32 // Single: the two users, lower index first
	Group int32     // Group: index into Plan.Groups; Room: into Plan.Rooms
}

// RoomSpec is a chatroom: nobody is a member until joining at run time.
// Its first Senders members send; the others join JoinEvery apart from the
// start of sending (0: all before it).
type RoomSpec struct {
	Key       string
	Conv      uint32 // its conversation
	Members   []uint32
	Senders   int
	JoinEvery time.Duration
}

// GroupSpec is a group the setup creates.
type GroupSpec struct {
	Key     string // stable suffix of the group id, e.g. "lg0"
	Large   bool
	Owner   uint32
	Members []uint32 // ascending, includes Owner
}

// Msg is one planned message. N counts the sender's messages in that
// conversation from 1, so a receiver can tell gaps, duplicates and order.
type Msg struct {
	Sender uint32
	Conv   uint32
	N      uint32
}

// Plan is a test's structure and its message streams.
type Plan struct {
	Name     string // "openim/test1"
	RunID    string
	Purpose  string
	Prefix   string // prepended to every user and group id
	Users    int
	Login    []Login
	LoginAt  []time.Duration // per user: a Timed login's time after sending begins (nil: none timed)
	Spells   []Spell         // times some users spend logged out during the run
	Friends  [][2]uint32
	Groups   []GroupSpec
	Rooms    []RoomSpec
	Watching []bool // per user: a watching phone (Wildfire's method), counted apart
	// Populations are the named sets of users classes draw from: the
	// plan's first users, in name order.
	Populations []PopulationSpec
	Convs       []Conv
	Streams     []*Stream       // one per workload class
	Rate        float64         // planned messages per second of the open streams
	BodySize    int             // bytes of message text, at least the verifier's header
	Workload    json.RawMessage // the workload as stated, after scaling (summary.json)

	pairConv  map[uint64]uint32
	reachOnce sync.Once
	reach     []int32 // reachable members per conversation
	watchers  []int32 // watching members per conversation
	popReach  []int32 // reachable members per conversation and population (with populations)
}

// UserID is the wire id of user i.
func (p *Plan) UserID(i uint32) string { return p.Prefix + "u" + strconv.FormatUint(uint64(i), 10) }

// GroupID is the wire id of group g.
func (p *Plan) GroupID(g int32) string { return p.Prefix + p.Groups[g].Key }

// RoomID is the wire id of chatroom r.
func (p *Plan) RoomID(r int32) string { return p.Prefix + p.Rooms[r].Key }

// Members lists the users of conversation c.
func (p *Plan) Members(c uint32) []uint32 {
	cv := &p.Convs[c]
	switch cv.Kind {
	case Group:
		return p.Groups[cv.Group].Members
	case Room:
		return p.Rooms[cv.Group].Members
	}
	return cv.Peers[:]
}

// Reachable reports whether user u logs in at some point in the plan, i.e.
// whether deliveries to u are expected.
func (p *Plan) Reachable(u uint32) bool { return p.Login[u] != Never }

// ExpectedRecipients counts the users other than the sender who should get
// m. A chatroom's recipients are those present when m was sent: the engine
// counts them; here they are 0.
func (p *Plan) ExpectedRecipients(m Msg) int {
	if p.Convs[m.Conv].Kind == Room {
		return 0
	}
	p.countMembers()
	n := int(p.reach[m.Conv])
	if p.Reachable(m.Sender) {
		n-- // the sender is a member; its own copy is not a delivery
	}
	return n
}

// ExpectedWatchers counts the watchers other than the sender who should
// get m (none in a chatroom).
func (p *Plan) ExpectedWatchers(m Msg) int {
	if p.Watching == nil || p.Convs[m.Conv].Kind == Room {
		return 0
	}
	p.countMembers()
	n := int(p.watchers[m.Conv])
	if p.IsWatcher(m.Sender) {
		n--
	}
	return n
}

// Watchers counts the watching phones.
func (p *Plan) Watchers() int {
	n := 0
	for _, w := range p.Watching {
		if w {
			n++
		}
	}
	return n
}

// IsWatcher reports whether user u is a watching phone.
func (p *Plan) IsWatcher(u uint32) bool { return p.Watching != nil && p.Watching[u] }

func (p *Plan) countMembers() {
	p.reachOnce.Do(func() {
		p.reach = make([]int32, len(p.Convs))
		p.watchers = make([]int32, len(p.Convs))
		for c := range p.Convs {
			for _, u := range p.Members(uint32(c)) {
				if p.Reachable(u) {
					p.reach[c]++
				}
				if p.IsWatcher(u) {
					p.watchers[c]++
				}
			}
		}
		if len(p.Populations) == 0 {
			return
		}
		n := len(p.Populations)
		p.popReach = make([]int32, len(p.Convs)*n)
		for c := range p.Convs {
			if p.Convs[c].Kind == Room {
				continue
			}
			for _, u := range p.Members(uint32(c)) {
				if k := p.PopulationOf(u); k >= 0 && p.Reachable(u) {
					p.popReach[c*n+k]++
				}
			}
		}
	})
}

// ExpectedByPopulation calls add with each population's count of the users
// other than the sender who should get m (none for a chatroom, or a plan
// without populations).
func (p *Plan) ExpectedByPopulation(m Msg, add func(pop int, n int64)) {
	n := len(p.Populations)
	if n == 0 || p.Convs[m.Conv].Kind == Room {
		return
	}
	p.countMembers()
	own := -1
	if p.Reachable(m.Sender) {
		own = p.PopulationOf(m.Sender)
	}
	for k, r := range p.popReach[int(m.Conv)*n : int(m.Conv)*n+n] {
		if k == own {
			r--
		}
		if r > 0 {
			add(k, int64(r))
		}
	}
}

// SingleConv returns the conversation of two friends.
func (p *Plan) SingleConv(a, b uint32) (uint32, bool) {
	c, ok := p.pairConv[pairKey(a, b)]
	return c, ok
}

// Duration is how long sending takes at the plan's pace: the longest
// stream, open streams at their rate, closed ones bounded by their time.
func (p *Plan) Duration() time.Duration {
	var d time.Duration
	for _, s := range p.Streams {
		d = max(d, s.Length())
	}
	return d
}

// FirstDue is when the plan's first message falls due, from the start of
// sending: 0 where a closed stream sends from the start.
func (p *Plan) FirstDue() time.Duration {
	first := time.Duration(-1)
	for _, s := range p.Streams {
		d := time.Duration(0)
		if s.Open() && s.total > 0 {
			d = s.due(0)
		}
		if first < 0 || d < first {
			first = d
		}
	}
	return max(first, 0)
}

// DueBefore counts the open streams' messages due before offset t from
// the start of sending: the plan's own count of a second is
// DueBefore(t+1s) − DueBefore(t).
func (p *Plan) DueBefore(t time.Duration) int64 {
	var n int64
	for _, s := range p.Streams {
		n += s.DueBefore(t)
	}
	return n
}

// spread shifts each open stream evenly paced by a share of its slot of
// its own, (i / n) for the i-th of n: classes at one rate then take turns
// within each message's slot instead of sending together (the first keeps
// its messages on the second).
func (p *Plan) spread() {
	var even []*Stream
	for _, s := range p.Streams {
		if s.Open() && !s.Burst && !s.online { // one following its senders' logins sends at them
			even = append(even, s)
		}
	}
	for i, s := range even {
		s.phase = float64(i) / float64(len(even))
	}
}

// Planned is the number of messages the plan sends, -1 when a closed stream
// is bounded by time only.
func (p *Plan) Planned() int64 {
	var n int64
	for _, s := range p.Streams {
		if !s.Open() && s.Until > 0 {
			return -1
		}
		n += int64(s.total)
	}
	return n
}

// Schedule yields the messages of the open streams in the order they are
// due, with their offset from the start of sending.
func (p *Plan) Schedule() iter.Seq2[Msg, time.Duration] {
	var open []*Stream
	for _, s := range p.Streams {
		if s.Open() {
			open = append(open, s)
		}
	}
	if len(open) == 1 {
		return open[0].Messages()
	}
	return func(yield func(Msg, time.Duration) bool) {
		type head struct {
			next func() (Msg, time.Duration, bool)
			stop func()
			m    Msg
			due  time.Duration
			ok   bool
		}
		heads := make([]*head, len(open))
		for i, s := range open {
			next, stop := iter.Pull2(s.Messages())
			h := &head{next: next, stop: stop}
			h.m, h.due, h.ok = next()
			heads[i] = h
		}
		defer func() {
			for _, h := range heads {
				h.stop()
			}
		}()
		for {
			var first *head
			for _, h := range heads {
				if h.ok && (first == nil || h.due < first.due) {
					first = h
				}
			}
			if first == nil || !yield(first.m, first.due) {
				return
			}
			first.m, first.due, first.ok = first.next()
		}
	}
}

// Kinds lists the conversation kinds the plan uses.
func (p *Plan) Kinds() []ConvKind {
	var out []ConvKind
	for _, k := range []ConvKind{Single, Group, Room} {
		for i := range p.Convs {
			if p.Convs[i].Kind == k {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// Count returns how many users have the given login phase.
func (p *Plan) Count(l Login) int {
	n := 0
	for _, x := range p.Login {
		if x == l {
			n++
		}
	}
	return n
}

// UserRange is the slice of users one worker drives: worker number vu
// (1-based, unique across the segments of a split run, see load/segment) of vus.
func (p *Plan) UserRange(vu, vus int) (lo, hi uint32, err error) {
	if vus < 1 || vu < 1 || vu > vus {
		return 0, 0, fmt.Errorf("VU %d is outside 1..%d", vu, vus)
	}
	n := uint64(p.Users)
	return uint32(n * uint64(vu-1) / uint64(vus)), uint32(n * uint64(vu) / uint64(vus)), nil
}

func pairKey(a, b uint32) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(a)<<32 | uint64(b)
}

// builder accumulates a plan's structure, within a memory limit (spend).
type builder struct {
	p            *Plan
	steps, limit uint64
	pops         map[string]*population
}

func newBuilder(name string, users int) *builder {
	return &builder{p: &Plan{Name: name, Users: users, Login: make([]Login, users), pairConv: map[uint64]uint32{}}, limit: planMemory()}
}

// timed has user u log in at d after sending begins.
func (b *builder) timed(u uint32, d time.Duration) {
	if b.p.LoginAt == nil {
		b.p.LoginAt = make([]time.Duration, b.p.Users)
	}
	b.p.Login[u], b.p.LoginAt[u] = Timed, d
}

// watch marks user u a watching phone.
func (b *builder) watch(u uint32) {
	if b.p.Watching == nil {
		b.p.Watching = make([]bool, b.p.Users)
	}
	b.p.Watching[u] = true
}

func (b *builder) friend(a, c uint32) uint32 {
	b.spend()
	if cv, ok := b.p.pairConv[pairKey(a, c)]; ok {
		return cv
	}
	if a > c {
		a, c = c, a
	}
	b.p.Friends = append(b.p.Friends, [2]uint32{a, c})
	idx := uint32(len(b.p.Convs))
	b.p.Convs = append(b.p.Convs, Conv{Kind: Single, Peers: [2]uint32{a, c}, Group: -1})
	b.p.pairConv[pairKey(a, c)] = idx
	return idx
}

func (b *builder) room(r RoomSpec) uint32 {
	b.spend()
	idx := uint32(len(b.p.Convs))
	r.Conv = idx
	b.p.Rooms = append(b.p.Rooms, r)
	b.p.Convs = append(b.p.Convs, Conv{Kind: Room, Group: int32(len(b.p.Rooms) - 1)})
	return idx
}

func (b *builder) group(g GroupSpec) uint32 {
	b.spend()
	b.p.Groups = append(b.p.Groups, g)
	idx := uint32(len(b.p.Convs))
	b.p.Convs = append(b.p.Convs, Conv{Kind: Group, Group: int32(len(b.p.Groups) - 1)})
	return idx
}

// ParseUserID returns the plan index of a wire user id, or -1 when the id is
// not one of this plan's users.
func (p *Plan) ParseUserID(id string) int64 {
	if len(id) <= len(p.Prefix)+1 || id[:len(p.Prefix)] != p.Prefix || id[len(p.Prefix)] != 'u' {
		return -1
	}
	digits := id[len(p.Prefix)+1:]
	if len(digits) > 1 && digits[0] == '0' {
		return -1
	}
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' || v > 1<<32 {
			return -1
		}
		v = v*10 + int64(c-'0')
	}
	if v >= int64(p.Users) {
		return -1
	}
	return v
}
