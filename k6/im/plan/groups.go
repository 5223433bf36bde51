package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Groups is G groups of M members each, users of their own: the first
// Senders members send, taking turns, and are online; the other members are
// receivers whose presence Presence says. Rates are per group.
type Groups struct {
	Kind    string `json:"kind"`
	Groups  int    `json:"groups"`
	Members int    `json:"members"`
	Senders int    `json:"senders,omitempty"` // default 1
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
	errs = append(errs, g.Presence.check(g.Members-g.Senders), g.Pace.check())
	return errors.Join(errs...)
}

func (g *Groups) users() int                  { return g.Groups * g.Members }
func (g *Groups) rate() float64               { return g.convRate(g.Groups) * float64(g.Groups) }
func (g *Groups) setRate(r float64)           { g.setTotal(r, g.Groups) }
func (g *Groups) setDuration(d time.Duration) { g.Pace.setDuration(d) }

func (g *Groups) build(b *builder, base uint32) (*Stream, error) {
	count, err := g.perConversation(g.Senders, g.Groups)
	if err != nil {
		return nil, err
	}
	lanes := make([]lane, 0, g.Groups)
	for i := 0; i < g.Groups; i++ {
		first := base + uint32(i*g.Members)
		members := make([]uint32, g.Members)
		for k := range members {
			members[k] = first + uint32(k)
		}
		senders := members[:g.Senders]
		for _, u := range senders {
			b.p.Login[u] = Immediate
		}
		g.Presence.assign(b, members[g.Senders:])
		c := b.group(GroupSpec{Key: "g" + strconv.FormatUint(uint64(base), 10) + "_" + strconv.Itoa(i), Owner: first, Members: members})
		lanes = append(lanes, lane{{conv: c, senders: senders, count: count}})
	}
	return g.stream(lanes, g.Groups), nil
}
