package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Chatroom is Rooms chatrooms of Members users each, all online: nobody is
// in a room until joining it at run time. The first Senders members join
// before sending starts and send, taking turns; the others join then too,
// or JoinRate a second from the start of sending. A message is expected at
// the members present when it was sent; a room may drop messages by design
// (it keeps no history), so what is missed is reported as a rate, not as a
// failure. Rates are per room.
type Chatroom struct {
	Kind     string  `json:"kind"`
	Rooms    int     `json:"rooms,omitempty"` // default 1
	Members  int     `json:"members"`
	Senders  int     `json:"senders,omitempty"` // default 1
	JoinRate float64 `json:"joinRate,omitempty"`
	Pace
}

func init() {
	RegisterKind("chatroom", func(raw json.RawMessage, scale float64) (Class, error) {
		var c Chatroom
		if err := strict(raw, &c); err != nil {
			return nil, err
		}
		if c.Rooms == 0 {
			c.Rooms = 1
		}
		if c.Senders == 0 {
			c.Senders = 1
		}
		c.Rooms = scaled(c.Rooms, scale, 1)
		c.Members = scaled(c.Members, scale, c.Senders+1)
		c.Messages = scaled(c.Messages, scale, 1)
		return &c, c.check()
	})
}

func (c *Chatroom) check() error {
	var errs []error
	if c.Rooms < 1 || c.Members < 2 {
		errs = append(errs, fmt.Errorf("rooms must be at least 1 and members at least 2, got %d and %d", c.Rooms, c.Members))
	}
	if c.Senders < 1 || c.Senders >= c.Members {
		errs = append(errs, fmt.Errorf("senders must be within 1..members-1, got %d", c.Senders))
	}
	if c.JoinRate < 0 {
		errs = append(errs, errors.New("joinRate must not be negative"))
	}
	return errors.Join(append(errs, c.Pace.check())...)
}

func (c *Chatroom) users() int                  { return c.Rooms * c.Members }
func (c *Chatroom) rate() float64               { return c.convRate(c.Rooms) * float64(c.Rooms) }
func (c *Chatroom) setRate(r float64)           { c.setTotal(r, c.Rooms) }
func (c *Chatroom) setDuration(d time.Duration) { c.Pace.setDuration(d) }

func (c *Chatroom) build(b *builder, base uint32) (*Stream, error) {
	count, err := c.perConversation(c.Senders, c.Rooms)
	if err != nil {
		return nil, err
	}
	var every time.Duration
	if c.JoinRate > 0 {
		every = time.Duration(float64(time.Second) / c.JoinRate)
	}
	lanes := make([]lane, 0, c.Rooms)
	for i := 0; i < c.Rooms; i++ {
		first := base + uint32(i*c.Members)
		members := make([]uint32, c.Members)
		for k := range members {
			members[k] = first + uint32(k)
			b.p.Login[members[k]] = Immediate
		}
		r := b.room(RoomSpec{Key: "r" + strconv.FormatUint(uint64(base), 10) + "_" + strconv.Itoa(i),
			Members: members, Senders: c.Senders, JoinEvery: every})
		lanes = append(lanes, lane{{conv: r, senders: members[:c.Senders], count: count.of(i)}})
	}
	return c.stream(lanes, c.Rooms), nil
}
