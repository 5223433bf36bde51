// Package plan is the protocol-neutral description of a test: who the users
// are, who is friends with whom, which groups exist, who logs in when, and
// which messages are sent in which global order at which rate. A plan is a
// pure function of its parameters, so every VU and every k6 process (one per
// execution segment) derives the same one without talking to each other.
package plan

import (
	"fmt"
	"strconv"
	"sync"
	"time"
)

// ConvKind tells a one-to-one conversation from a group.
type ConvKind uint8

const (
	Single ConvKind = 1
	Group  ConvKind = 3
)

func (k ConvKind) String() string {
	if k == Group {
		return "group"
	}
	return "single"
}

// Login says when a user comes online.
type Login uint8

const (
	Never     Login = iota // registered, never logs in
	Immediate              // online before sending starts
	Late                   // logs in after sending ends and pulls what it missed
)

// Conv is a conversation: two friends, or a group.
type Conv struct {
	Kind  ConvKind
	Peers [2]uint32 // Single: the two users, lower index first
	Group int32     // Group: index into Plan.Groups
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

// Plan is a fully expanded test.
type Plan struct {
	Name     string // "openim/test1"
	Purpose  string
	Prefix   string // prepended to every user and group id
	Users    int
	Login    []Login
	Friends  [][2]uint32
	Groups   []GroupSpec
	Convs    []Conv
	Messages []Msg   // global send order
	Rate     float64 // messages per second over all senders
	BodySize int     // bytes of message text, at least the verifier's header

	pairConv  map[uint64]uint32
	reachOnce sync.Once
	reach     []int32 // reachable members per conversation
}

// UserID is the wire id of user i.
func (p *Plan) UserID(i uint32) string { return p.Prefix + "u" + strconv.FormatUint(uint64(i), 10) }

// GroupID is the wire id of group g.
func (p *Plan) GroupID(g int32) string { return p.Prefix + p.Groups[g].Key }

// Members lists the users of conversation c.
func (p *Plan) Members(c uint32) []uint32 {
	cv := &p.Convs[c]
	if cv.Kind == Group {
		return p.Groups[cv.Group].Members
	}
	return cv.Peers[:]
}

// Reachable reports whether user u logs in at some point in the plan, i.e.
// whether deliveries to u are expected.
func (p *Plan) Reachable(u uint32) bool { return p.Login[u] != Never }

// ExpectedRecipients counts the users other than the sender who should get m.
func (p *Plan) ExpectedRecipients(m Msg) int {
	p.reachOnce.Do(func() {
		p.reach = make([]int32, len(p.Convs))
		for c := range p.Convs {
			for _, u := range p.Members(uint32(c)) {
				if p.Reachable(u) {
					p.reach[c]++
				}
			}
		}
	})
	n := int(p.reach[m.Conv])
	if p.Reachable(m.Sender) {
		n-- // the sender is a member; its own copy is not a delivery
	}
	return n
}

// SingleConv returns the conversation of two friends.
func (p *Plan) SingleConv(a, b uint32) (uint32, bool) {
	c, ok := p.pairConv[pairKey(a, b)]
	return c, ok
}

// Duration is how long sending takes at the plan's rate.
func (p *Plan) Duration() time.Duration {
	if p.Rate <= 0 || len(p.Messages) == 0 {
		return 0
	}
	return time.Duration(float64(len(p.Messages)) / p.Rate * float64(time.Second))
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

// UserRange is the slice of users one VU drives: VU number vu (1-based, k6's
// exec.vu.idInTest, which k6 makes unique across execution segments) of vus.
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

// builder accumulates a plan's structure.
type builder struct{ p *Plan }

func newBuilder(name string, users int) *builder {
	return &builder{p: &Plan{Name: name, Users: users, Login: make([]Login, users), pairConv: map[uint64]uint32{}}}
}

func (b *builder) friend(a, c uint32) uint32 {
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

func (b *builder) group(g GroupSpec) uint32 {
	b.p.Groups = append(b.p.Groups, g)
	idx := uint32(len(b.p.Convs))
	b.p.Convs = append(b.p.Convs, Conv{Kind: Group, Group: int32(len(b.p.Groups) - 1)})
	return idx
}

// interleave builds the global send order from per-sender queues: round r
// takes the r-th message of every sender that still has one, the way a pool
// of concurrent senders drains its users' work.
func interleave(perSender [][]Msg) []Msg {
	total := 0
	for _, q := range perSender {
		total += len(q)
	}
	out := make([]Msg, 0, total)
	for r := 0; len(out) < total; r++ {
		for _, q := range perSender {
			if r < len(q) {
				out = append(out, q[r])
			}
		}
	}
	return out
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
