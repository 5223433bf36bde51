package openim

import (
	wire "github.com/imbench/imbench/wire/openim"

	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/framecache"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
)

// Config is how to reach one OpenIM deployment and how to talk to it.
type Config struct {
	APIURL      string        // openim-api, e.g. http://127.0.0.1:10002
	WSURL       string        // openim-msggateway, e.g. ws://127.0.0.1:10001; several, comma-separated: user i uses the (i mod n)-th
	Secret      string        // share.yml secret
	AdminID     string        // share.yml imAdminUserID
	Platform    int           // platformID of every connection (2 = Android, as the seed's programs)
	Envelope    wire.Envelope // gob (sdkType=go) or json (sdkType=js)
	Gzip        bool          // compression=gzip
	MsgResp     bool          // isMsgResp=true: auth result as a text frame
	Timeout     time.Duration // request and handshake timeout (the SDK uses 10 s)
	ReadTimeout time.Duration // silence after which a connection is considered dead
	Parallel    int           // concurrent REST calls during setup
	SourceAddrs []net.IP      // local addresses to spread connections over (nil: the system's choice)
	Login       string        // LoginLight (default) or LoginSDK: what a client does after the upgrade
}

// The login modes: what a client does once the WebSocket is up.
const (
	// LoginLight asks for the newest seqs (1001) and pulls what is missing:
	// the least a client that verifies every message does, close to
	// msgtest's connections (which send nothing at all).
	LoginLight = "light"
	// LoginSDK makes the requests openim-sdk-core v3.8 makes at login, in
	// its order (sdklogin.go): what the SDK-based programs' users cost.
	LoginSDK = "sdk"
)

// Validate checks a config and fills defaults.
func (c *Config) Validate() error {
	var errs []error
	check := func(name, raw string, schemes ...string) string {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			errs = append(errs, fmt.Errorf("OpenIM %s %q is not a URL", name, raw))
			return raw
		}
		if u.Scheme != schemes[0] && u.Scheme != schemes[1] {
			errs = append(errs, fmt.Errorf("OpenIM %s %q must start with %s:// or %s://", name, raw, schemes[0], schemes[1]))
		}
		return strings.TrimRight(raw, "/")
	}
	c.APIURL = check("API URL", c.APIURL, "http", "https")
	var ws []string
	for _, raw := range strings.Split(c.WSURL, ",") {
		ws = append(ws, check("WebSocket URL", strings.TrimSpace(raw), "ws", "wss"))
	}
	c.WSURL = strings.Join(ws, ",")
	if c.Secret == "" {
		errs = append(errs, errors.New("the OpenIM secret is empty (set IM_SECRET)"))
	}
	if c.AdminID == "" {
		c.AdminID = "imAdmin"
	}
	if c.Platform == 0 {
		c.Platform = wire.PlatformAndroid
	}
	if !wire.ValidPlatform(c.Platform) {
		errs = append(errs, fmt.Errorf("platform %d is not a user platform (1-9, 11)", c.Platform))
	}
	if c.Envelope == "" {
		c.Envelope = wire.Gob
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = 45 * time.Second
	}
	if c.Parallel <= 0 {
		c.Parallel = 8
	}
	switch c.Login {
	case "":
		c.Login = LoginLight
	case LoginLight, LoginSDK:
	default:
		errs = append(errs, fmt.Errorf("login %q: want %s or %s", c.Login, LoginLight, LoginSDK))
	}
	return errors.Join(errs...)
}

// Driver speaks OpenIM for one plan. It is shared by all VUs of a process.
type Driver struct {
	cfg   Config
	plan  *plan.Plan
	api   *API
	conv  []string          // plan conversation → conversationID
	byID  map[string]uint32 // conversationID → plan conversation
	users []string          // plan user → userID

	mu     sync.Mutex
	admin  string
	tokens map[uint32]string

	dialer   *engine.SourceDialer
	gateways []string                           // the WebSocket URLs users are spread over
	frames   framecache.Cache[[]verify.Arrival] // a push frame's arrivals, decoded once for every receiver of its bytes

	// The SDK-faithful login's: the users' REST client, each user's local
	// database (nil in the light login), and a test's record of requests.
	userAPI *API
	local   []*local
	trace   func(u uint32, req string)
}

var _ engine.Driver = (*Driver)(nil)

// New prepares a driver; it does not contact the target.
func New(cfg Config, p *plan.Plan) (*Driver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &Driver{cfg: cfg, plan: p, tokens: map[uint32]string{},
		api:    newAPI(cfg),
		dialer: &engine.SourceDialer{Timeout: cfg.Timeout, Addrs: cfg.SourceAddrs}, gateways: strings.Split(cfg.WSURL, ",")}
	d.users = make([]string, p.Users)
	for i := range d.users {
		d.users[i] = p.UserID(uint32(i))
	}
	if cfg.Login == LoginSDK {
		d.userAPI = newUserAPI(cfg)
		d.local = make([]*local, p.Users)
	}
	d.conv = make([]string, len(p.Convs))
	d.byID = make(map[string]uint32, len(p.Convs))
	for i, c := range p.Convs {
		var id string
		if c.Kind == plan.Group {
			id = wire.GroupConversationID(p.GroupID(c.Group))
		} else {
			id = wire.SingleConversationID(d.users[c.Peers[0]], d.users[c.Peers[1]])
		}
		d.conv[i] = id
		d.byID[id] = uint32(i)
	}
	return d, nil
}

// LoginMode is the configured login, LoginLight or LoginSDK.
func (d *Driver) LoginMode() string { return d.cfg.Login }

// ConversationID is the wire id of plan conversation c.
func (d *Driver) ConversationID(c uint32) string { return d.conv[c] }

// Preflight gets an admin token: it proves the API answers and accepts the
// secret and admin user id.
func (d *Driver) Preflight(ctx context.Context) error {
	_, err := d.adminToken(ctx)
	return err
}

func (d *Driver) adminToken(ctx context.Context) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.admin != "" {
		return d.admin, nil
	}
	tok, err := adminToken(ctx, d.api, d.cfg)
	if err != nil {
		return "", err
	}
	d.admin = tok
	return tok, nil
}

// forgetAdmin drops the cached admin token if it is still tok.
func (d *Driver) forgetAdmin(tok string) {
	d.mu.Lock()
	if d.admin == tok {
		d.admin = ""
	}
	d.mu.Unlock()
}

func newAPI(cfg Config) *API {
	return &API{Base: cfg.APIURL, Secret: cfg.Secret, AdminID: cfg.AdminID, HTTP: &http.Client{Timeout: 2 * cfg.Timeout}}
}

// adminToken proves the API answers and accepts the secret and admin user.
func adminToken(ctx context.Context, api *API, cfg Config) (string, error) {
	tok, err := api.AdminToken(ctx)
	if err != nil {
		return "", describeAdminError(cfg, err)
	}
	return tok, nil
}

func describeAdminError(cfg Config, err error) error {
	switch Code(err) {
	case 0:
		return fmt.Errorf("OpenIM API at %s is not reachable: %w", cfg.APIURL, err)
	case wire.CodeNoPermission:
		return fmt.Errorf("OpenIM API at %s rejected the admin secret (%w)", cfg.APIURL, err)
	case wire.CodeArgs:
		return fmt.Errorf("OpenIM API at %s rejected admin user %q (%w)", cfg.APIURL, cfg.AdminID, err)
	}
	return fmt.Errorf("OpenIM API at %s: %w", cfg.APIURL, err)
}

// Setup registers the plan's users, imports the friendships and creates the
// groups, the way the seed's integration_test does it over REST.
func (d *Driver) Setup(ctx context.Context, progress func(string)) (engine.SetupReport, error) {
	var rep engine.SetupReport
	admin, err := d.adminToken(ctx)
	if err != nil {
		return rep, err
	}
	p := d.plan
	progress(fmt.Sprintf("registering %d users", p.Users))
	var regMu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(d.cfg.Parallel)
	for start := 0; start < len(d.users); start += Batch {
		chunk := d.users[start:min(start+Batch, len(d.users))]
		g.Go(func() error {
			n, err := d.api.RegisterUsers(gctx, admin, chunk)
			regMu.Lock()
			rep.Registered += n
			regMu.Unlock()
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return rep, fmt.Errorf("register users: %w", err)
	}

	friendsOf := map[uint32][]string{}
	var owners []uint32
	for _, f := range p.Friends {
		if _, ok := friendsOf[f[0]]; !ok {
			owners = append(owners, f[0])
		}
		friendsOf[f[0]] = append(friendsOf[f[0]], d.users[f[1]])
	}
	progress(fmt.Sprintf("importing %d friendships, creating %d groups", len(p.Friends), len(p.Groups)))
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(d.cfg.Parallel)
	for _, o := range owners {
		g.Go(func() error { return d.api.ImportFriends(gctx, admin, d.users[o], friendsOf[o]) })
	}
	var seqRefused atomic.Int64
	for gi := range p.Groups {
		spec := &p.Groups[gi]
		g.Go(func() error {
			members := make([]string, len(spec.Members))
			for i, m := range spec.Members {
				members[i] = d.users[m]
			}
			n, err := d.api.CreateGroup(gctx, admin, p.GroupID(int32(gi)), d.users[spec.Owner], members)
			seqRefused.Add(int64(n))
			if Code(err) == wire.CodeGroupExisted {
				return nil // a repeated setup of the same plan
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return rep, fmt.Errorf("friends and groups: %w", err)
	}
	if n := seqRefused.Load(); n > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the server answered %d of its invitations to groups with errCode 1001 \"maxSeq is invalid\" "+
			"after adding their members (open-im-server v3.8's InviteUserToGroup asks for a join seq of 0, which its own check refuses): "+
			"every member was found in its group; their join seq was not set", n))
	}
	rep.Friendships, rep.Groups = len(p.Friends), len(p.Groups)
	return rep, nil
}

// token returns user u's token for the configured platform, fetching it
// once; fresh forces a new one (after the server forgot or kicked the old).
func (d *Driver) token(ctx context.Context, u uint32, fresh bool) (string, error) {
	d.mu.Lock()
	tok, ok := d.tokens[u]
	d.mu.Unlock()
	if ok && !fresh {
		return tok, nil
	}
	admin, err := d.adminToken(ctx)
	if err != nil {
		return "", err
	}
	tok, err = d.api.UserToken(ctx, admin, d.users[u], d.cfg.Platform)
	var ae *APIError
	if errors.As(err, &ae) && wire.IsTokenError(ae.Code) {
		// The server forgot the admin token too (restarted): one new one.
		d.forgetAdmin(admin)
		if admin, err = d.adminToken(ctx); err != nil {
			return "", err
		}
		tok, err = d.api.UserToken(ctx, admin, d.users[u], d.cfg.Platform)
	}
	if err != nil {
		return "", fmt.Errorf("token for %s: %w", d.users[u], err)
	}
	d.mu.Lock()
	d.tokens[u] = tok
	d.mu.Unlock()
	return tok, nil
}

// Connect logs user u in: a token (cached), then the WebSocket handshake.
func (d *Driver) Connect(ctx context.Context, u uint32, h engine.Handler) (engine.Conn, error) {
	tok, err := d.token(ctx, u, false)
	if err != nil {
		return nil, err
	}
	c, err := d.dial(ctx, u, tok, h)
	var le *LoginError
	if errors.As(err, &le) && wire.IsTokenError(le.Code) {
		// The target no longer knows this token (restarted, or kicked it):
		// one fresh token, as the SDK would after logging in again.
		if tok, err = d.token(ctx, u, true); err != nil {
			var ae *APIError
			if errors.As(err, &ae) && ae.Code == wire.CodeUserNotFound && engine.Attempt(ctx) > 0 {
				return nil, fmt.Errorf("%w: %v", engine.ErrStateLost, err)
			}
			return nil, err
		}
		c, err = d.dial(ctx, u, tok, h)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}
