package wukongim

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// Batch is how many subscribers one channel call carries.
const Batch = 1000

// Driver speaks WuKongIM for one plan; all VUs of a process share it.
type Driver struct {
	cfg     Config
	plan    *plan.Plan
	api     *API
	users   []string          // plan user → uid
	groupOf map[string]uint32 // group channel id → plan conversation
	roomOf  map[string]uint32 // live channel id → plan conversation
	convsOf [][]uint32        // plan user → its conversations (for a login's sync)
	once    sync.Once

	dialer   *engine.SourceDialer
	gateways []string
	conns    atomic.Uint64 // deviceIDs: one per connection
}

var _ engine.Driver = (*Driver)(nil)

// New prepares a driver; it does not contact the target.
func New(cfg Config, p *plan.Plan) (*Driver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &Driver{cfg: cfg, plan: p, api: newAPI(cfg), groupOf: map[string]uint32{}, roomOf: map[string]uint32{},
		gateways: cfg.gateways()}
	d.dialer = &engine.SourceDialer{Timeout: cfg.Timeout, Addrs: cfg.SourceAddrs}
	d.users = make([]string, p.Users)
	for i := range d.users {
		d.users[i] = p.UserID(uint32(i))
	}
	for i, c := range p.Convs {
		switch c.Kind {
		case plan.Group:
			d.groupOf[p.GroupID(c.Group)] = uint32(i)
		case plan.Room:
			d.roomOf[p.RoomID(c.Group)] = uint32(i)
		}
	}
	return d, nil
}

// token is user u's token: derived from the run, so that every process of
// a distributed run computes the same one without asking.
func (d *Driver) token(u uint32) string {
	sum := md5.Sum([]byte(d.plan.RunID + "|" + d.users[u]))
	return hex.EncodeToString(sum[:])
}

// channel is the channel a plan conversation is sent to by sender.
func (d *Driver) channel(conv, sender uint32) (id string, typ uint8) {
	c := &d.plan.Convs[conv]
	switch c.Kind {
	case plan.Group:
		return d.plan.GroupID(c.Group), wire.ChannelGroup
	case plan.Room:
		return d.plan.RoomID(c.Group), wire.ChannelLive
	}
	peer := c.Peers[0]
	if peer == sender {
		peer = c.Peers[1]
	}
	return d.users[peer], wire.ChannelPerson
}

// conversations lists user u's plan conversations that keep a history
// (built once, on the first sync): chatrooms keep none.
func (d *Driver) conversations(u uint32) []uint32 {
	d.once.Do(func() {
		d.convsOf = make([][]uint32, d.plan.Users)
		for i, c := range d.plan.Convs {
			if c.Kind == plan.Room {
				continue
			}
			if c.Kind == plan.Group {
				for _, m := range d.plan.Groups[c.Group].Members {
					d.convsOf[m] = append(d.convsOf[m], uint32(i))
				}
				continue
			}
			for _, m := range c.Peers {
				d.convsOf[m] = append(d.convsOf[m], uint32(i))
			}
		}
	})
	return d.convsOf[u]
}

// EmptyUntilSent implements engine.EmptyUntilSent: creating a channel or
// adding subscribers writes no message into it (checked on v2.1.2: 225
// first-login syncs of a run's fresh channels found none).
func (d *Driver) EmptyUntilSent() bool { return true }

// Setup gives every user its token (creating it) where the server checks
// tokens, and creates the groups with their members, in batches.
func (d *Driver) Setup(ctx context.Context, progress func(string)) (engine.SetupReport, error) {
	var rep engine.SetupReport
	p := d.plan
	progress(fmt.Sprintf("registering %d users", p.Users))
	// Asked beside the first tokens: a server that checks none answers at
	// once and the rest are not set; one that checks them answers nothing.
	var tokenFree atomic.Bool // the server logs in any token (tokenAuthOn false)
	probe, stopProbe := context.WithTimeout(ctx, 2*time.Second)
	defer stopProbe()
	go func() { tokenFree.Store(!d.tokensChecked(probe)) }()
	var n atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(d.cfg.Parallel)
	for u := range d.users {
		g.Go(func() error {
			if tokenFree.Load() {
				return nil
			}
			if err := d.api.SetToken(gctx, d.users[u], d.token(uint32(u)), uint8(d.cfg.DeviceFlag)); err != nil {
				return fmt.Errorf("token of %s: %w", d.users[u], err)
			}
			n.Add(1)
			return nil
		})
	}
	err := g.Wait()
	stopProbe()
	rep.Registered = int(n.Load())
	if err != nil {
		return rep, fmt.Errorf("register users: %w", err)
	}
	if tokenFree.Load() {
		progress(fmt.Sprintf("the server checks no token (tokenAuthOn false): %d of %d users were given one before it said so", rep.Registered, p.Users))
	}
	progress(fmt.Sprintf("creating %d groups", len(p.Groups)))
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(d.cfg.Parallel)
	for gi := range p.Groups {
		spec := &p.Groups[gi]
		g.Go(func() error {
			id := p.GroupID(int32(gi))
			for start := 0; start < len(spec.Members); start += Batch {
				chunk := make([]string, 0, Batch)
				for _, m := range spec.Members[start:min(start+Batch, len(spec.Members))] {
					chunk = append(chunk, d.users[m])
				}
				var err error
				if start == 0 {
					err = d.api.CreateGroup(gctx, id, chunk)
				} else {
					err = d.api.AddSubscribers(gctx, id, wire.ChannelGroup, chunk)
				}
				if err != nil {
					return fmt.Errorf("group %s: %w", id, err)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return rep, fmt.Errorf("groups: %w", err)
	}
	rep.Groups = len(p.Groups)
	return rep, nil
}

// tokensChecked logs in a uid the server has never seen with a token it
// was never given: a server that checks tokens refuses it, one with
// tokenAuthOn false lets it in, and then a run's users need no token
// (one /user/token call a user saved). Where the answer is not clear it
// says checked: the tokens are set as before.
func (d *Driver) tokensChecked(ctx context.Context) bool {
	if len(d.gateways) == 0 {
		return true
	}
	gw, err := url.Parse(d.gateways[0])
	if err != nil {
		return true
	}
	sum := md5.Sum([]byte(d.plan.RunID + "|token check"))
	probe := "imbench-tokencheck-" + hex.EncodeToString(sum[:6])
	reason, err := connectAs(ctx, gw, d.cfg, probe, hex.EncodeToString(sum[6:]))
	return err != nil || reason != wire.ReasonSuccess
}

// Connect logs user u in on its gateway.
func (d *Driver) Connect(ctx context.Context, u uint32, h engine.Handler) (engine.Conn, error) {
	c, err := d.dial(ctx, u, h)
	var le *LoginError
	if errors.As(err, &le) && le.Reason == wire.ReasonAuthFail && engine.Attempt(ctx) > 0 {
		// The token it accepted before: the server forgot it.
		return nil, fmt.Errorf("%w: %v", engine.ErrStateLost, err)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}
