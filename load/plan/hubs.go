package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Hubs is one-to-one chats around hubs: each of Hubs users talks with
// Partners users of its own (support agents and their customers, a bot
// and its users). Direction says who writes: "both" (the default: each
// conversation carries the hub's messages and the partner's), "toPartners"
// or "toHubs". Hubs are online; Presence says which partners are (all,
// where it says nothing), and a partner who logs in at loginAt writes from
// then on. Rates per conversation and direction, or over the class.
type Hubs struct {
	Kind      string `json:"kind"`
	Hubs      int    `json:"hubs"`
	Partners  int    `json:"partners"`
	Direction string `json:"direction,omitempty"`
	// From draws the hubs and their partners from populations instead of
	// users of the class's own.
	From *HubsFrom `json:"from,omitempty"`
	Presence
	Pace
}

// The directions of a hub class.
const (
	DirBoth       = "both"
	DirToPartners = "toPartners"
	DirToHubs     = "toHubs"
)

func init() {
	RegisterKind("hubs", func(raw json.RawMessage, scale float64) (Class, error) {
		var h Hubs
		if err := strict(raw, &h); err != nil {
			return nil, err
		}
		h.Hubs = scaled(h.Hubs, scale, 1)
		h.Messages = scaled(h.Messages, scale, 1)
		if h.From == nil && h.Online == 0 && h.OnlineShare == 0 && h.Late == 0 && h.LateShare == 0 && h.Watchers == 0 {
			h.AllOnline = true
		}
		return &h, h.check()
	})
}

func (h *Hubs) check() error {
	var errs []error
	if h.Hubs < 1 || h.Partners < 1 {
		errs = append(errs, errors.New("give hubs and partners (per hub), each 1 or more"))
	}
	switch h.Direction {
	case "", DirBoth, DirToPartners, DirToHubs:
	default:
		errs = append(errs, fmt.Errorf("direction must be %q, %q or %q, got %q", DirBoth, DirToPartners, DirToHubs, h.Direction))
	}
	if h.convs() > 10_000_000 {
		errs = append(errs, fmt.Errorf("%d conversations are too many (at most 10,000,000)", h.convs()))
	}
	errs = append(errs, h.Presence.check(h.partners()), h.Pace.check())
	if h.From != nil {
		if h.From.Hubs == "" || h.From.Partners == "" {
			errs = append(errs, errors.New("from: { hubs: population, partners: population }"))
		}
		return errors.Join(append(errs, checkDraw(h.draws(), &h.Presence))...) // the populations say who is online
	}
	if h.partnersWrite() && len(h.Away) > 0 {
		errs = append(errs, errors.New("the partners write (direction both or toHubs): away spells are for partners who only read (direction toPartners)"))
	}
	if h.partnersWrite() {
		on, late := h.counts(h.partners())
		switch {
		case on < h.partners() || late > 0 || h.Watchers > 0:
			errs = append(errs, fmt.Errorf("the partners write (direction %s): every one logs in before or while sending (allOnline, loginAt for later), not %d of %d", h.direction(), on, h.partners()))
		case h.LoginAt != "" && h.Lead > 0:
			errs = append(errs, errors.New("a burst at the class's start needs its writers online then: not with loginAt"))
		case h.LoginAt != "" && h.InFlight > 0:
			errs = append(errs, errors.New("a closed class (inFlight) sends from the start: its writing partners cannot log in at loginAt"))
		case h.LoginAt != "" && !h.hubsWrite() && h.timedCount(on) == on:
			errs = append(errs, errors.New("every writer logs in at loginAt: nobody could send before then (direction both, or fewer at loginAt with loginAtShare)"))
		}
	}
	return errors.Join(errs...)
}

// HubsFrom names the populations a hubs class draws from: hub i is the
// i-th of Hubs (wrapping), its partners the next of Partners in turn.
type HubsFrom struct {
	Hubs     string `json:"hubs"`
	Partners string `json:"partners"`
}

func (h *Hubs) draws() Draw {
	if h.From == nil {
		return nil
	}
	if h.From.Hubs == h.From.Partners {
		return Draw{{Population: h.From.Hubs}}
	}
	return Draw{{Population: h.From.Hubs}, {Population: h.From.Partners}}
}

func (h *Hubs) direction() string {
	if h.Direction == "" {
		return DirBoth
	}
	return h.Direction
}

func (h *Hubs) hubsWrite() bool     { return h.direction() != DirToHubs }
func (h *Hubs) partnersWrite() bool { return h.direction() != DirToPartners }
func (h *Hubs) partners() int       { return h.Hubs * h.Partners }
func (h *Hubs) convs() int          { return h.partners() }

// lanes is one a conversation and direction: the unit of the rates.
func (h *Hubs) lanes() int {
	if h.direction() == DirBoth {
		return 2 * h.convs()
	}
	return h.convs()
}

func (h *Hubs) users() int {
	if h.From != nil {
		return 0
	}
	return h.Hubs + h.partners()
}

func (h *Hubs) rate() float64               { return h.convRate(h.lanes()) * float64(h.lanes()) }
func (h *Hubs) setRate(r float64)           { h.setTotal(r, h.lanes()) }
func (h *Hubs) setDuration(d time.Duration) { h.Pace.setDuration(d) }

func (h *Hubs) build(b *builder, base uint32) (*Stream, error) {
	if h.From != nil {
		return h.buildFrom(b)
	}
	hubs := uint32(h.Hubs)
	partners := make([]uint32, h.partners())
	for i := range partners {
		partners[i] = base + hubs + uint32(i)
	}
	h.Presence.assign(b, partners)
	for i := range hubs {
		b.p.Login[base+i] = Immediate
	}
	count, err := h.perConversation(1, h.lanes())
	if err != nil {
		return nil, err
	}
	// Partner-major across hubs, so that consecutive messages go to
	// different hubs; a partner's own lane joins once it is online.
	lanes := make([]lane, 0, h.lanes())
	var joinAt []time.Duration
	for p := range h.Partners {
		for hb := range h.Hubs {
			hub, partner := base+uint32(hb), partners[hb*h.Partners+p]
			conv := b.friend(hub, partner)
			if h.hubsWrite() {
				lanes = append(lanes, lane{{conv: conv, senders: []uint32{hub}, count: count.of(len(lanes))}})
				joinAt = append(joinAt, 0)
			}
			if h.partnersWrite() {
				lanes = append(lanes, lane{{conv: conv, senders: []uint32{partner}, count: count.of(len(lanes))}})
				var at time.Duration
				if b.p.Login[partner] == Timed {
					at = b.p.LoginAt[partner]
				}
				joinAt = append(joinAt, at)
			}
		}
	}
	s := h.stream(lanes, h.lanes())
	s.joinAt = joinAt
	return s, nil
}

// buildFrom makes the class's conversations between users of populations,
// each written as its direction says by whoever is online.
func (h *Hubs) buildFrom(b *builder) (*Stream, error) {
	hubs, partners := b.pops[h.From.Hubs], b.pops[h.From.Partners]
	count, err := h.perConversation(1, h.lanes())
	if err != nil {
		return nil, err
	}
	lanes := make([]lane, 0, h.lanes())
	for p := range h.Partners {
		for hb := range h.Hubs {
			hub, partner := hubs.user(hb), partners.user(hb*h.Partners+p)
			if _, taken := b.p.pairConv[pairKey(hub, partner)]; taken || hub == partner {
				return nil, fmt.Errorf("hub u%d and its partner u%d are one user or have a conversation already (of this class or another): give the populations more users", hub, partner)
			}
			conv := b.friend(hub, partner)
			if h.hubsWrite() {
				lanes = append(lanes, lane{{conv: conv, senders: []uint32{hub}, count: count.of(len(lanes))}})
			}
			if h.partnersWrite() {
				lanes = append(lanes, lane{{conv: conv, senders: []uint32{partner}, count: count.of(len(lanes))}})
			}
		}
	}
	join, err := b.sendersOnline(lanes, &h.Pace)
	if err != nil {
		return nil, err
	}
	s := h.stream(lanes, h.lanes())
	if err := h.online(s, join, b.p.Spells); err != nil {
		return nil, err
	}
	return s, nil
}
