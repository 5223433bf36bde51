package wildfire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/httpanswer"
	"github.com/imbench/imbench/load/plan"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// Endpoint names: a target speaking several protocols lists each one's.
const (
	EndpointAdmin = "wildfire_admin" // the admin API, e.g. http://127.0.0.1:18080
	EndpointMQTT  = "wildfire_mqtt"  // the MQTT long-connection port, tcp://127.0.0.1:1883
)

func init() {
	engine.Register(engine.Spec{
		Name:      "wildfire",
		Endpoints: []string{EndpointAdmin, EndpointMQTT},
		// The server drops a connection silent 1.5 × keepAlive; the web
		// client pings every 180 s, a PINGREQ after that long without
		// sending (docs/real-servers.md). A target's keepAlive option moves
		// both (protocol.Keepalive).
		PingLimit: DefaultKeepAlive * time.Second,
		Keepalive: engine.Keepalive{Every: DefaultKeepAlive * time.Second, AfterSilence: true},
		Carries:   []plan.ConvKind{plan.Single, plan.Group, plan.Room},
		Open:      open,
	})
}

// Options are a Wildfire target's options.
type Options struct {
	Secret      string   `json:"secret"`      // the admin API's http.admin.secret_key
	Platform    int      `json:"platform"`    // get_token's platform (default 7, Linux)
	KeepAlive   int      `json:"keepAlive"`   // CONNECT keepAlive seconds (default 180)
	SourceAddrs []string `json:"sourceAddrs"` // local addresses to spread connections over
	Timeout     string   `json:"timeout"`     // request and handshake timeout (default 10s)
}

type protocol struct{ cfg Config }

// Keepalive implements engine.KeepaliveSetter: an MQTT client sends
// something within its keepAlive.
func (p *protocol) Keepalive() (engine.Keepalive, time.Duration) {
	every := time.Duration(p.cfg.KeepAlive) * time.Second
	return engine.Keepalive{Every: every, AfterSilence: true}, every
}

func open(t engine.Target) (engine.Protocol, error) {
	var o Options
	if err := engine.DecodeOptions("wildfire", t.Options, &o); err != nil {
		return nil, err
	}
	cfg := Config{AdminURL: t.Endpoints[EndpointAdmin], MQTT: t.Endpoints[EndpointMQTT], Secret: o.Secret,
		Platform: o.Platform, KeepAlive: o.KeepAlive}
	var err error
	if cfg.Timeout, err = engine.ParseTimeout(o.Timeout); err != nil {
		return nil, err
	}
	if cfg.SourceAddrs, err = engine.ParseSourceAddrs(o.SourceAddrs); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &protocol{cfg: cfg}, nil
}

// Preflight asks for the server's health (unsigned) and its online count
// (signed: a wrong admin secret is refused with 244), and opens a TCP
// connection to every MQTT endpoint. It changes nothing on the server.
func (p *protocol) Preflight(ctx context.Context) error {
	a := newAdmin(p.cfg)
	if err := a.Health(ctx); err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return fmt.Errorf("Wildfire admin API at %s is not reachable: %w", p.cfg.AdminURL, unwrapNet(err))
		}
		return err // an answer, but a refusal or not Wildfire's
	}
	if _, err := a.OnlineCount(ctx); err != nil {
		return err
	}
	for _, g := range p.cfg.gateways() {
		if err := engine.Reach(ctx, g); err != nil {
			return fmt.Errorf("Wildfire MQTT endpoint at tcp://%s is not reachable: %w", g, err)
		}
	}
	return nil
}

// CheckGateways sends every MQTT endpoint a CONNECT of a client id no
// server knows: Wildfire answers a CONNACK refusing it (7, session not
// exist), where a port serving something else answers otherwise or not
// at all. It changes nothing on the server.
func (p *protocol) CheckGateways(ctx context.Context) error {
	for _, g := range p.cfg.gateways() {
		if err := connackFrom(ctx, g); err != nil {
			return fmt.Errorf("Wildfire MQTT endpoint at tcp://%s answers, but not as Wildfire's MQTT: %w (check IM_WILDFIRE_MQTT_URL)", g, err)
		}
	}
	return nil
}

// connackFrom sends addr a CONNECT of an unknown client and reads the
// first byte of the answer: a CONNACK's, within 5 s.
func connackFrom(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return unwrapNet(err)
	}
	defer c.Close()
	deadline, _ := ctx.Deadline()
	c.SetDeadline(deadline)
	frame, err := wire.NewConnect("imbench-preflight", "imbench-preflight", []byte("imbench-preflight"), 10).Append(nil)
	if err != nil {
		return err
	}
	if _, err := c.Write(frame); err != nil {
		return unwrapNet(err)
	}
	var first [64]byte
	n, err := c.Read(first[:])
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return errors.New("no CONNACK to a CONNECT within 5 s")
		}
		return fmt.Errorf("no CONNACK to a CONNECT (%v)", unwrapNet(err))
	}
	if line, ok := httpanswer.StatusLine(first[:n]); ok {
		return fmt.Errorf("a CONNECT was answered in HTTP (%q), not with a CONNACK", line)
	}
	if t := wire.PacketType(first[0] >> 4); t != wire.TypeConnack {
		return fmt.Errorf("a CONNECT was answered with a byte 0x%02x, not a CONNACK", first[0])
	}
	return nil
}

// Driver speaks Wildfire for plan pl.
func (p *protocol) Driver(pl *plan.Plan, readTimeout time.Duration) (engine.Driver, error) {
	cfg := p.cfg
	cfg.ReadTimeout = readTimeout
	return New(cfg, pl)
}

// unwrapNet keeps a network error's own reason ("connection refused"):
// one line, without the URL twice.
func unwrapNet(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Err
	}
	return err
}
