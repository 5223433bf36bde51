package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Pairs is one-to-one chats on users of their own: Pairs pairs (sender i
// writes to receiver i), or Senders × Receivers (every sender writes to
// every receiver). Senders are online; Presence says which receivers are.
// Rates are per pair.
type Pairs struct {
	Kind      string `json:"kind"`
	Pairs     int    `json:"pairs,omitempty"`
	Senders   int    `json:"senders,omitempty"`
	Receivers int    `json:"receivers,omitempty"`
	// From draws the pairs from a population instead of users of the
	// class's own: pairs of its users no other class has.
	From Draw `json:"from,omitempty"`
	Presence
	Pace
}

func init() {
	RegisterKind("pairs", func(raw json.RawMessage, scale float64) (Class, error) {
		var p Pairs
		if err := strict(raw, &p); err != nil {
			return nil, err
		}
		p.Pairs = scaled(p.Pairs, scale, 1)
		p.Senders = scaled(p.Senders, scale, 1)
		p.Receivers = scaled(p.Receivers, scale, 1)
		p.Messages = scaled(p.Messages, scale, 1)
		return &p, p.check()
	})
}

func (p *Pairs) check() error {
	var errs []error
	if (p.Pairs > 0) == (p.Senders > 0 || p.Receivers > 0) || (p.Pairs == 0 && (p.Senders < 1 || p.Receivers < 1)) {
		errs = append(errs, errors.New("give pairs, or senders and receivers"))
	}
	if p.convs() > 10_000_000 {
		errs = append(errs, fmt.Errorf("%d pairs are too many (at most 10,000,000)", p.convs()))
	}
	errs = append(errs, p.Presence.check(p.receivers()), p.Pace.check())
	if p.From != nil {
		if len(p.From) != 1 || p.From.drawn() || p.Pairs == 0 {
			errs = append(errs, errors.New("from one population: pairs: N and from: its name"))
		}
		errs = append(errs, checkDraw(p.From, &p.Presence))
	}
	return errors.Join(errs...)
}

func (p *Pairs) draws() Draw { return p.From }

func (p *Pairs) senders() int {
	if p.Pairs > 0 {
		return p.Pairs
	}
	return p.Senders
}

func (p *Pairs) receivers() int {
	if p.Pairs > 0 {
		return p.Pairs
	}
	return p.Receivers
}

func (p *Pairs) convs() int {
	if p.Pairs > 0 {
		return p.Pairs
	}
	return p.Senders * p.Receivers
}

func (p *Pairs) users() int {
	if p.From != nil {
		return 0
	}
	return p.senders() + p.receivers()
}
func (p *Pairs) rate() float64               { return p.convRate(p.convs()) * float64(p.convs()) }
func (p *Pairs) setRate(r float64)           { p.setTotal(r, p.convs()) }
func (p *Pairs) setDuration(d time.Duration) { p.Pace.setDuration(d) }

func (p *Pairs) build(b *builder, base uint32) (*Stream, error) {
	if p.From != nil {
		return p.buildFrom(b)
	}
	ns := uint32(p.senders())
	receivers := make([]uint32, p.receivers())
	for i := range receivers {
		receivers[i] = base + ns + uint32(i)
	}
	p.Presence.assign(b, receivers)
	senders := make([]uint32, ns)
	for s := range senders {
		senders[s] = base + uint32(s)
		b.p.Login[senders[s]] = Immediate
	}
	// Receiver-major, so that consecutive messages come from different
	// senders.
	count, err := p.perConversation(1, p.convs())
	if err != nil {
		return nil, err
	}
	lanes := make([]lane, 0, p.convs())
	for i, r := range receivers {
		if p.Pairs > 0 { // sender i writes to receiver i
			lanes = append(lanes, lane{{conv: b.friend(senders[i], r), senders: senders[i : i+1], count: count.of(len(lanes))}})
			continue
		}
		for s := range senders {
			lanes = append(lanes, lane{{conv: b.friend(senders[s], r), senders: senders[s : s+1], count: count.of(len(lanes))}})
		}
	}
	return p.stream(lanes, p.convs()), nil
}

// buildFrom makes the class's pairs from its population, each written by
// its first user.
func (p *Pairs) buildFrom(b *builder) (*Stream, error) {
	pairs, err := b.drawPairs(b.pops[p.From[0].Population], p.Pairs)
	if err != nil {
		return nil, err
	}
	count, err := p.perConversation(1, len(pairs))
	if err != nil {
		return nil, err
	}
	lanes := make([]lane, 0, len(pairs))
	for i, pr := range pairs {
		lanes = append(lanes, lane{{conv: b.friend(pr[0], pr[1]), senders: []uint32{pr[0]}, count: count.of(i)}})
	}
	join, err := b.sendersOnline(lanes, &p.Pace)
	if err != nil {
		return nil, err
	}
	s := p.stream(lanes, len(pairs))
	if err := p.online(s, join, b.p.Spells); err != nil {
		return nil, err
	}
	return s, nil
}
