package wildfire

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// Batch is how many members one group call carries.
const Batch = 500

// Driver speaks Wildfire for one plan; all VUs of a process share it.
type Driver struct {
	cfg     Config
	plan    *plan.Plan
	admin   *Admin
	users   []string          // plan user → user id
	groupOf map[string]uint32 // group id → plan conversation
	roomOf  map[string]uint32 // chatroom id → plan conversation

	// Per user: its session (clientId and keys, from get_token on its first
	// login) and, per pull type, the newest message number it holds: both
	// outlive a connection, as an SDK's local store does.
	smu      sync.Mutex
	sessions []*session
	heads    [2][]atomic.Int64
	// held is the newest number of the normal feed a pull showed to be a
	// message of the user's: a server whose CONNACK head is below it has
	// lost its state. Not heads: those also take the empty feed's 2.
	held   []atomic.Int64
	logins []atomic.Bool // logged in before: a later login recovers

	dialer   *engine.SourceDialer
	gateways []string
}

// session is what get_token gave for one user's client.
type session struct {
	clientID string
	desToken string
	cipher   *wire.Cipher
}

var _ engine.Driver = (*Driver)(nil)

// New prepares a driver; it does not contact the target.
func New(cfg Config, p *plan.Plan) (*Driver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &Driver{cfg: cfg, plan: p, admin: newAdmin(cfg), groupOf: map[string]uint32{}, roomOf: map[string]uint32{},
		gateways: cfg.gateways()}
	d.dialer = &engine.SourceDialer{Timeout: cfg.Timeout, Addrs: cfg.SourceAddrs}
	d.users = make([]string, p.Users)
	for i := range d.users {
		d.users[i] = p.UserID(uint32(i))
	}
	d.sessions = make([]*session, p.Users)
	d.logins = make([]atomic.Bool, p.Users)
	d.heads[wire.PullNormal] = make([]atomic.Int64, p.Users)
	d.held = make([]atomic.Int64, p.Users)
	for i, c := range p.Convs {
		switch c.Kind {
		case plan.Group:
			d.groupOf[p.GroupID(c.Group)] = uint32(i)
		case plan.Room:
			d.roomOf[p.RoomID(c.Group)] = uint32(i)
		}
	}
	if len(d.roomOf) > 0 {
		d.heads[wire.PullChatroom] = make([]atomic.Int64, p.Users)
	}
	return d, nil
}

// clientID is user u's one client: wfcstress names them c_<userId>.
func (d *Driver) clientID(u uint32) string { return "c_" + d.users[u] }

// session returns user u's session, asking get_token the first time. A
// second get_token for a connected client would kick it (§14), so the
// answer is kept for every later login of the run.
func (d *Driver) session(ctx context.Context, u uint32) (*session, error) {
	d.smu.Lock()
	s := d.sessions[u]
	d.smu.Unlock()
	if s != nil {
		return s, nil
	}
	tok, err := d.admin.GetToken(ctx, d.users[u], d.clientID(u), d.cfg.Platform)
	if err != nil {
		return nil, err
	}
	t, err := wire.ParseIMToken(tok)
	if err != nil {
		return nil, fmt.Errorf("get_token of %s: %w", d.users[u], err)
	}
	c, err := wire.NewCipher(t.Secret)
	if err != nil {
		return nil, fmt.Errorf("get_token of %s: %w", d.users[u], err)
	}
	s = &session{clientID: d.clientID(u), desToken: t.DESToken, cipher: c}
	d.smu.Lock()
	if d.sessions[u] == nil {
		d.sessions[u] = s
	}
	s = d.sessions[u]
	d.smu.Unlock()
	return s, nil
}

// target is the conversation a plan conversation is sent to by sender.
func (d *Driver) target(conv, sender uint32) (typ int32, id string) {
	c := &d.plan.Convs[conv]
	switch c.Kind {
	case plan.Group:
		return wire.ConvGroup, d.plan.GroupID(c.Group)
	case plan.Room:
		return wire.ConvChatroom, d.plan.RoomID(c.Group)
	}
	peer := c.Peers[0]
	if peer == sender {
		peer = c.Peers[1]
	}
	return wire.ConvPrivate, d.users[peer]
}

// Setup creates the users, the groups with their members and the
// chatrooms (members join them over MQTT); tokens come at each login.
func (d *Driver) Setup(ctx context.Context, progress func(string)) (engine.SetupReport, error) {
	var rep engine.SetupReport
	p := d.plan
	progress(fmt.Sprintf("creating %d users", p.Users))
	var n atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(d.cfg.Parallel)
	for u := range d.users {
		g.Go(func() error {
			if err := d.admin.CreateUser(gctx, d.users[u]); err != nil {
				return err
			}
			n.Add(1)
			return nil
		})
	}
	err := g.Wait()
	rep.Registered = int(n.Load())
	if err != nil {
		return rep, fmt.Errorf("create users: %w", err)
	}
	if err := d.checkRateLimit(ctx, progress); err != nil {
		return rep, err
	}
	progress(fmt.Sprintf("creating %d groups and %d chatrooms", len(p.Groups), len(d.roomOf)))
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(d.cfg.Parallel)
	for gi := range p.Groups {
		spec := &p.Groups[gi]
		g.Go(func() error {
			id := p.GroupID(int32(gi))
			ids := make([]string, len(spec.Members))
			for i, m := range spec.Members {
				ids[i] = d.users[m]
			}
			for start := 0; start < len(ids); start += Batch {
				chunk := ids[start:min(start+Batch, len(ids))]
				var err error
				if start == 0 {
					err = d.admin.CreateGroup(gctx, id, chunk)
				} else {
					err = d.admin.AddMembers(gctx, id, ids[0], chunk)
				}
				if err != nil {
					return fmt.Errorf("group %s: %w", id, err)
				}
			}
			return nil
		})
	}
	for id := range d.roomOf {
		g.Go(func() error {
			if err := d.admin.CreateChatroom(gctx, id); err != nil {
				return fmt.Errorf("chatroom %s: %w", id, err)
			}
			return nil
		})
	}
	err = g.Wait()
	if rep.WritesRedone = int(d.admin.redone.Load()); rep.WritesRedone > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the server answered %d of setup's group writes with a timeout (249): each was made again", rep.WritesRedone))
	}
	if err != nil {
		return rep, fmt.Errorf("groups: %w", err)
	}
	rep.Groups = len(p.Groups)
	return rep, nil
}

// Connect logs user u in.
func (d *Driver) Connect(ctx context.Context, u uint32, h engine.Handler) (engine.Conn, error) {
	return d.dial(ctx, u, h)
}
