package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Groups is G groups of M members each, users of their own: the first
// Senders members send, taking turns, and are online; the other members are
// receivers whose presence Presence says. Rates are per group. Shared: the
// senders and the watchers are the same users in every group (Wildfire's
// wfcstress: each sender writes to every group, one watching phone is in all
// of them); the other receivers are still each group's own. SameMembers:
// every group has the same members (OpenIM's report: ten groups of 50,000
// drawn from one population), so users are Members, not Groups × Members.
type Groups struct {
	Kind        string `json:"kind"`
	Groups      int    `json:"groups"`
	Members     int    `json:"members"`
	Senders     int    `json:"senders,omitempty"` // default 1
	Shared      bool   `json:"shared,omitempty"`
	SameMembers bool   `json:"sameMembers,omitempty"`
	// From draws the members from populations instead of users of the
	// class's own: group i takes the next members of each in turn.
	From Draw `json:"from,omitempty"`
	Presence
	Pace
}

func init() {
	RegisterKind("groups", func(raw json.RawMessage, scale float64) (Class, error) {
		var g Groups
		if err := strict(raw, &g); err != nil {
			return nil, err
		}
		if g.Senders == 0 {
			g.Senders = 1
		}
		if g.From.drawn() && g.Members == 0 {
			g.Members = g.From.total()
		}
		g.Groups = scaled(g.Groups, scale, 1)
		g.Messages = scaled(g.Messages, scale, 1)
		return &g, g.check()
	})
}

func (g *Groups) check() error {
	var errs []error
	if g.Groups < 1 || g.Members < 2 {
		errs = append(errs, fmt.Errorf("groups must be at least 1 and members at least 2, got %d and %d", g.Groups, g.Members))
	}
	if g.Senders < 1 || g.Senders > g.Members {
		errs = append(errs, fmt.Errorf("senders must be within 1..members, got %d", g.Senders))
	}
	if g.Shared && g.SameMembers {
		errs = append(errs, errors.New("shared and sameMembers exclude each other: sameMembers shares every member"))
	}
	if g.Shared && g.own() < 0 {
		errs = append(errs, fmt.Errorf("shared senders %d and watchers %d exceed the %d members", g.Senders, g.Watchers, g.Members))
	}
	errs = append(errs, g.Presence.check(g.Members-g.Senders), g.Pace.check())
	if g.From != nil {
		errs = append(errs, g.checkFrom())
	}
	return errors.Join(errs...)
}

func (g *Groups) checkFrom() error {
	var errs []error
	if g.Shared || g.SameMembers {
		errs = append(errs, errors.New("a class drawn from populations shares its members through them: no shared or sameMembers"))
	}
	if len(g.From) == 1 && g.From[0].Count == 0 && g.Members == 0 {
		errs = append(errs, errors.New("from one population: give members, or from as {name: members}"))
	}
	if g.From.drawn() && g.Members != g.From.total() {
		errs = append(errs, fmt.Errorf("members %d is not the %d that from draws", g.Members, g.From.total()))
	}
	return errors.Join(append(errs, checkDraw(g.From, &g.Presence))...)
}

func (g *Groups) draws() Draw { return g.From }

func (g *Groups) users() int {
	if g.From != nil {
		return 0
	}
	if g.SameMembers {
		return g.Members
	}
	if g.Shared {
		return g.Senders + g.Watchers + g.Groups*g.own()
	}
	return g.Groups * g.Members
}

// own is how many members of a shared group are its own.
func (g *Groups) own() int { return g.Members - g.Senders - g.Watchers }

func (g *Groups) rate() float64               { return g.convRate(g.Groups) * float64(g.Groups) }
func (g *Groups) setRate(r float64)           { g.setTotal(r, g.Groups) }
func (g *Groups) setDuration(d time.Duration) { g.Pace.setDuration(d) }

func (g *Groups) build(b *builder, base uint32) (*Stream, error) {
	count, err := g.perConversation(g.Senders, g.Groups)
	if err != nil {
		return nil, err
	}
	if g.From != nil {
		return g.buildFrom(b, base, count)
	}
	var shared []uint32 // senders, then watchers
	if g.Shared {
		for k := 0; k < g.Senders+g.Watchers; k++ {
			shared = append(shared, base+uint32(k))
			b.p.Login[base+uint32(k)] = Immediate
			if k >= g.Senders {
				b.watch(base + uint32(k))
			}
		}
	}
	lanes := make([]lane, 0, g.Groups)
	var same []uint32 // the first group's members: every group's, with SameMembers
	for i := 0; i < g.Groups; i++ {
		var members []uint32
		switch {
		case g.SameMembers && i > 0:
			members = same
		case g.Shared:
			first := base + uint32(len(shared)+i*g.own())
			members = append(members, shared...)
			for k := 0; k < g.own(); k++ {
				members = append(members, first+uint32(k))
			}
			pres := g.Presence
			pres.Watchers = 0 // the shared ones, online already
			pres.assign(b, members[len(shared):])
		default:
			first := base + uint32(i*g.Members)
			for k := 0; k < g.Members; k++ {
				members = append(members, first+uint32(k))
			}
			for _, u := range members[:g.Senders] {
				b.p.Login[u] = Immediate
			}
			g.Presence.assign(b, members[g.Senders:])
		}
		if i == 0 {
			same = members
		}
		c := b.group(GroupSpec{Key: "g" + strconv.FormatUint(uint64(base), 10) + "_" + strconv.Itoa(i),
			Owner: members[0], Members: members})
		lanes = append(lanes, lane{{conv: c, senders: turns(members[:g.Senders], i, g.Shared || g.SameMembers), count: count.of(i)}})
	}
	return g.stream(lanes, g.Groups), nil
}

// turns is group i's senders in the order they take turns. Groups that
// share their senders start at different ones, so that a round's messages
// come from different senders at once, as people in several groups talk at
// the same time: one sender writing every group's message in turn, each
// after the last one's SENDACK, has the server write each receiver its
// RECVs one by one where it would pack them in one write.
func turns(senders []uint32, i int, shared bool) []uint32 {
	k := i % len(senders)
	if !shared || k == 0 {
		return senders
	}
	return append(slices.Clone(senders[k:]), senders[:k]...)
}

// buildFrom makes the groups of members drawn from populations: group i
// takes, from each population in turn, its next members (wrapping), the
// first of them its senders.
func (g *Groups) buildFrom(b *builder, base uint32, count shares) (*Stream, error) {
	next := make([]int, len(g.From))
	lanes := make([]lane, 0, g.Groups)
	for i := 0; i < g.Groups; i++ {
		drawn := make([]uint32, 0, g.Members)
		for k, part := range g.From {
			pp := b.pops[part.Population]
			n := part.Count
			if n == 0 {
				n = g.Members
			}
			if n > int(pp.n) {
				return nil, fmt.Errorf("a group takes %d members from population %s, which has %d users", n, pp.name, pp.n)
			}
			for range n {
				drawn = append(drawn, pp.user(next[k]))
				next[k]++
			}
		}
		members := slices.Clone(drawn)
		slices.Sort(members)
		c := b.group(GroupSpec{Key: "f" + strconv.Itoa(len(b.p.Groups)), Owner: drawn[0], Members: members}) // classes drawing from populations share a base
		lanes = append(lanes, lane{{conv: c, senders: drawn[:g.Senders], count: count.of(i)}})
	}
	join, err := b.sendersOnline(lanes, &g.Pace)
	if err != nil {
		return nil, err
	}
	s := g.stream(lanes, g.Groups)
	if err := g.online(s, join, b.p.Spells); err != nil {
		return nil, err
	}
	return s, nil
}
