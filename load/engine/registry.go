package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/imbench/imbench/load/plan"
)

// Spec is what a protocol registers: how to read a target of its system and
// what the protocol can carry.
type Spec struct {
	// Name is the system the protocol belongs to ("openim").
	Name string
	// Endpoints names the endpoints a target must give, e.g. "api", "ws".
	Endpoints []string
	// PingLimit is the longest heartbeat period the server tolerates (0:
	// no limit).
	PingLimit time.Duration
	// Keepalive is how the vendor's own SDK keeps a connection alive:
	// what a run does unless IM_PING_INTERVAL says otherwise.
	Keepalive Keepalive
	// Carries lists the conversation kinds the protocol can deliver.
	Carries []plan.ConvKind
	// AdminUser is true when the options take an admin user id ("admin")
	// beside the secret; a CLI passes a profile's admin only then.
	AdminUser bool
	// Open reads a target's options strictly; it contacts nothing.
	Open func(t Target) (Protocol, error)
}

// Keepalive is a client's heartbeat: how often, and whether on a fixed
// timer or only after silence. A protocol's doc cites the SDK source of its
// figures.
type Keepalive struct {
	Every time.Duration
	// AfterSilence pings only a connection that has written nothing for
	// Every (MQTT's keepAlive); otherwise every Every on a fixed timer.
	AfterSilence bool
}

// KeepaliveSetter is a Protocol whose options change its keepalive and
// the longest period its server tolerates (Wildfire's CONNECT keepAlive).
type KeepaliveSetter interface {
	Keepalive() (k Keepalive, limit time.Duration)
}

// KeepaliveOf is p's keepalive and ping limit: the spec's, or what the
// target's options make them.
func (s Spec) KeepaliveOf(p Protocol) (Keepalive, time.Duration) {
	if ks, ok := p.(KeepaliveSetter); ok {
		return ks.Keepalive()
	}
	return s.Keepalive, s.PingLimit
}

// Protocol is one target, read by its protocol: what the CLI checks before
// load, and what makes a plan's driver.
type Protocol interface {
	// Preflight checks that the target answers and accepts the
	// credentials; it changes nothing on the target.
	Preflight(ctx context.Context) error
	// Driver speaks the protocol for plan p; readTimeout is the silence
	// after which a connection counts as dead.
	Driver(p *plan.Plan, readTimeout time.Duration) (Driver, error)
}

// GatewayChecker is a protocol that can tell whether its gateways speak
// it: a handshake no login passes, or the manager's. A command checks so
// once before any load (not every run of a limit search: a server just
// loaded to its limit may drop such a login).
type GatewayChecker interface {
	CheckGateways(ctx context.Context) error
}

// StockLogins is what a protocol may offer the bench's baseline, stock k6
// (k6/websockets, no extension) holding its users online: n users set up
// on the target, and for each the WebSocket URL that logs it in.
type StockLogins interface {
	StockLogins(ctx context.Context, prefix string, n int) ([]string, error)
}

var registry = struct {
	sync.Mutex
	specs map[string]Spec
}{specs: map[string]Spec{}}

// Register adds a protocol; a protocol package calls it from init.
func Register(s Spec) {
	registry.Lock()
	defer registry.Unlock()
	if s.Name == "" || s.Open == nil || len(s.Endpoints) == 0 {
		panic("engine.Register: a spec needs a name, endpoints and Open")
	}
	if _, dup := registry.specs[s.Name]; dup {
		panic("engine.Register: protocol " + s.Name + " registered twice")
	}
	registry.specs[s.Name] = s
}

// Lookup finds a registered protocol.
func Lookup(name string) (Spec, error) {
	registry.Lock()
	defer registry.Unlock()
	s, ok := registry.specs[name]
	if !ok {
		return s, fmt.Errorf("protocol %q is not supported (supported: %s)", name, strings.Join(protocolsLocked(), ", "))
	}
	return s, nil
}

// Protocols lists the registered protocols.
func Protocols() []string {
	registry.Lock()
	defer registry.Unlock()
	return protocolsLocked()
}

func protocolsLocked() []string {
	names := make([]string, 0, len(registry.specs))
	for n := range registry.specs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// CanCarry reports the first conversation kind of p the protocol cannot
// deliver, as an error.
func (s Spec) CanCarry(p *plan.Plan) error {
	for _, k := range p.Kinds() {
		if slices.Contains(s.Carries, k) {
			continue
		}
		what := map[plan.ConvKind]string{plan.Single: "a pairs class", plan.Group: "a groups class", plan.Room: "a chatroom class"}[k]
		var others []string
		registry.Lock()
		for n, o := range registry.specs {
			if slices.Contains(o.Carries, k) {
				others = append(others, n)
			}
		}
		registry.Unlock()
		sort.Strings(others)
		out := "leave that class out"
		if len(others) > 0 {
			out = fmt.Sprintf("run it over %s (PROTOCOL=%s, on a target that speaks it), or leave that class out", strings.Join(others, " or "), others[0])
		}
		return fmt.Errorf("%s cannot carry %s conversations (%s of the scenario): %s", s.Name, k, what, out)
	}
	return nil
}
