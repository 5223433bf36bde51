package wukongim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
)

// Endpoint names: a target speaking several protocols lists each one's.
const (
	EndpointAPI = "wukongim_api" // the HTTP API, e.g. http://127.0.0.1:5001
	EndpointTCP = "wukongim_tcp" // binary WKProto over TCP, tcp://127.0.0.1:5100
	EndpointWS  = "wukongim_ws"  // binary WKProto over WebSocket, ws://127.0.0.1:5200
)

func init() {
	engine.Register(engine.Spec{
		Name:      "wukongim",
		Endpoints: []string{EndpointAPI, EndpointTCP, EndpointWS},
		// The server drops a logged-in connection silent for connIdleTime
		// (3 min by default, wukongim.md §5).
		PingLimit: 2 * time.Minute,
		// The SDKs ping every 60 s on a fixed timer (docs/real-servers.md).
		Keepalive: engine.Keepalive{Every: time.Minute},
		// Chatrooms are v2's live channels (type 9): members join through
		// /channel/subscriber_add, and the server keeps no history for them.
		Carries:   []plan.ConvKind{plan.Single, plan.Group, plan.Room},
		AdminUser: true,
		Open:      open,
	})
}

// Options are a WuKongIM target's options.
type Options struct {
	Secret      string   `json:"secret"`      // the server's managerToken ("" when it has none)
	Admin       string   `json:"admin"`       // the manager uid (____manager); imbench sends as users only
	DeviceFlag  int      `json:"deviceFlag"`  // 0 APP (default), 1 WEB, 2 PC
	Transport   string   `json:"transport"`   // tcp (default) or ws
	Version     int      `json:"version"`     // protocol version asked for (default 5)
	SourceAddrs []string `json:"sourceAddrs"` // local addresses to spread connections over
	Timeout     string   `json:"timeout"`     // request and handshake timeout (default 10s)
	AckDelay    string   `json:"ackDelay"`    // how long a RECVACK may wait for others (default 100ms; 0: each read's at its end)
}

type protocol struct{ cfg Config }

func open(t engine.Target) (engine.Protocol, error) {
	var o Options
	if err := engine.DecodeOptions("wukongim", t.Options, &o); err != nil {
		return nil, err
	}
	cfg := Config{APIURL: t.Endpoints[EndpointAPI], TCP: t.Endpoints[EndpointTCP], WS: t.Endpoints[EndpointWS],
		Token: o.Secret, DeviceFlag: o.DeviceFlag, Transport: o.Transport, Version: o.Version}
	var err error
	if cfg.Timeout, err = engine.ParseTimeout(o.Timeout); err != nil {
		return nil, err
	}
	if cfg.SourceAddrs, err = engine.ParseSourceAddrs(o.SourceAddrs); err != nil {
		return nil, err
	}
	if cfg.AckDelay, err = ParseAckDelay(o.AckDelay); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &protocol{cfg: cfg}, nil
}

// Preflight asks the API for its health (a wrong manager token gets 401)
// and opens a TCP connection to every gateway of the transport.
func (p *protocol) Preflight(ctx context.Context) error {
	if err := newAPI(p.cfg).Health(ctx); err != nil {
		return err
	}
	for _, g := range p.cfg.gateways() {
		u, err := url.Parse(g)
		if err != nil {
			return err
		}
		if err := engine.Reach(ctx, hostPort(u)); err != nil {
			return fmt.Errorf("WuKongIM %s endpoint at %s is not reachable: %w", p.cfg.Transport, g, err)
		}
	}
	return nil
}

// Driver speaks WuKongIM for plan pl.
func (p *protocol) Driver(pl *plan.Plan, readTimeout time.Duration) (engine.Driver, error) {
	cfg := p.cfg
	cfg.ReadTimeout = readTimeout
	return New(cfg, pl)
}

// CheckGateways logs in at every gateway of the transport as the manager:
// each must answer a CONNACK. A close before any CONNACK is retried, and a
// gateway that closed every attempt so is named for what it did.
func (p *protocol) CheckGateways(ctx context.Context) error {
	for _, g := range p.cfg.gateways() {
		u, err := url.Parse(g)
		if err != nil {
			return err
		}
		err = connackRetried(ctx, u, p.cfg)
		var dropped *droppedError
		switch {
		case errors.As(err, &dropped):
			return fmt.Errorf("WuKongIM %s endpoint at %s closed the connection without a CONNACK to the manager's CONNECT in each of %d attempts (%s after it): "+
				"a real WuKongIM drops about one such CONNECT in five (\"writeFrame: conn not exist\" in its log), not every one: it is no WuKongIM "+
				"(check IM_WUKONGIM_%s_URL), or one that drops every login (its log says why)", p.cfg.Transport, g, dropped.attempts, dropped.after, strings.ToUpper(p.cfg.Transport))
		case err != nil:
			return fmt.Errorf("WuKongIM %s endpoint at %s answers, but not as WuKongIM: %w (check IM_WUKONGIM_%s_URL)", p.cfg.Transport, g, err, strings.ToUpper(p.cfg.Transport))
		}
	}
	return nil
}

// droppedError is a gateway that closed the connection before any CONNACK
// in every attempt; after lists how long after the CONNECT each time.
type droppedError struct {
	attempts int
	after    string
	last     error
}

func (e *droppedError) Error() string { return e.last.Error() }
func (e *droppedError) Unwrap() error { return e.last }

// connackRetried is connackFrom, tried again (four attempts in all) where
// the server closed the connection before any CONNACK, however long after
// the CONNECT: a real WuKongIM drops about 1 in 5 of the manager's CONNECTs
// so, closing about 3 s later (wukongim.md §17), and a retry gets through.
func connackRetried(ctx context.Context, u *url.URL, cfg Config) error {
	const attempts = 4
	var afters []string
	for attempt := 1; ; attempt++ {
		began := time.Now()
		err := connackFrom(ctx, u, cfg)
		if err == nil || !errors.Is(err, errDropped) {
			return err
		}
		afters = append(afters, time.Since(began).Round(100*time.Millisecond).String())
		if attempt == attempts {
			return &droppedError{attempts: attempts, after: strings.Join(afters, ", "), last: err}
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * 500 * time.Millisecond):
		}
	}
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	switch u.Scheme {
	case "wss":
		return net.JoinHostPort(u.Hostname(), "443")
	case "ws":
		return net.JoinHostPort(u.Hostname(), "80")
	}
	return net.JoinHostPort(u.Hostname(), "5100")
}

// ParseAckDelay reads the ackDelay option: "" is DefaultAckDelay.
func ParseAckDelay(raw string) (time.Duration, error) {
	if raw == "" {
		return DefaultAckDelay, nil
	}
	d, err := time.ParseDuration(raw)
	if raw == "0" {
		d, err = 0, nil
	}
	if err != nil || d < 0 || d > time.Second {
		return 0, fmt.Errorf("WuKongIM ackDelay %q: want a duration from 0 to 1s, such as 100ms", raw)
	}
	return d, nil
}
