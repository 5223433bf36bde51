package openim

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/plan"
	wire "github.com/imbench/imbench/wire/openim"
)

func init() {
	engine.Register(engine.Spec{
		Name:      "openim",
		Endpoints: []string{"api", "ws"},
		// The gateway closes connections silent for 30 s.
		PingLimit: (wire.ReadDeadlineSeconds - 5) * time.Second,
		// openim-sdk-core pings every 24 s on a fixed ticker (docs/real-servers.md).
		Keepalive: engine.Keepalive{Every: wire.SDKPingSeconds * time.Second},
		Carries:   []plan.ConvKind{plan.Single, plan.Group},
		AdminUser: true,
		Open:      open,
	})
}

// Options are an OpenIM target's options: the admin credentials of
// share.yml and the SDK's connection choices.
type Options struct {
	Secret      string   `json:"secret"`
	Admin       string   `json:"admin"`
	Platform    int      `json:"platform"`
	Envelope    string   `json:"envelope"`    // gob (the Go SDK's) or json (the JS SDK's)
	Compression string   `json:"compression"` // gzip (default) or none
	MsgResp     bool     `json:"msgResp"`
	SourceAddrs []string `json:"sourceAddrs"` // local addresses to spread connections over
	Timeout     string   `json:"timeout"`     // request and handshake timeout
	Login       string   `json:"login"`       // light (default) or sdk: what a client does after the upgrade (sdklogin.go)
}

// protocol is one OpenIM target, read.
type protocol struct{ cfg Config }

func open(t engine.Target) (engine.Protocol, error) {
	var o Options
	if err := engine.DecodeOptions("openim", t.Options, &o); err != nil {
		return nil, err
	}
	cfg, err := o.config(t.Endpoints["api"], t.Endpoints["ws"])
	if err != nil {
		return nil, err
	}
	return &protocol{cfg: cfg}, nil
}

func (o Options) config(api, ws string) (Config, error) {
	if o.Compression == "" {
		o.Compression = "gzip"
	}
	if o.Compression != "gzip" && o.Compression != "none" {
		return Config{}, fmt.Errorf("compression %q: want gzip or none", o.Compression)
	}
	if o.Envelope == "" {
		o.Envelope = string(wire.Gob)
	}
	env, err := wire.ParseEnvelope(o.Envelope)
	if err != nil {
		return Config{}, err
	}
	timeout, err := engine.ParseTimeout(o.Timeout)
	if err != nil {
		return Config{}, err
	}
	cfg := Config{APIURL: api, WSURL: ws, Secret: o.Secret, AdminID: o.Admin, Platform: o.Platform,
		Envelope: env, Gzip: o.Compression == "gzip", MsgResp: o.MsgResp, Timeout: timeout, Login: o.Login}
	if cfg.SourceAddrs, err = engine.ParseSourceAddrs(o.SourceAddrs); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

// Preflight gets an admin token (the API answers and accepts the secret)
// and opens a TCP connection to every gateway.
func (p *protocol) Preflight(ctx context.Context) error {
	if _, err := adminToken(ctx, newAPI(p.cfg), p.cfg); err != nil {
		return err
	}
	for _, ws := range strings.Split(p.cfg.WSURL, ",") {
		u, err := url.Parse(ws)
		if err != nil {
			return err
		}
		if err := engine.Reach(ctx, hostPort(u)); err != nil {
			return fmt.Errorf("OpenIM gateway at %s is not reachable: %w", ws, err)
		}
	}
	return nil
}

// CheckGateways asks every gateway for a WebSocket upgrade no login can
// pass: each must answer as msggateway does.
func (p *protocol) CheckGateways(ctx context.Context) error {
	for _, ws := range strings.Split(p.cfg.WSURL, ",") {
		if err := gatewayAnswers(ctx, ws, p.cfg.Platform); err != nil {
			return fmt.Errorf("OpenIM gateway at %s answers, but not as msggateway: %w (check IM_WS_URL)", ws, err)
		}
	}
	return nil
}

// Driver speaks OpenIM for plan p.
func (p *protocol) Driver(pl *plan.Plan, readTimeout time.Duration) (engine.Driver, error) {
	cfg := p.cfg
	cfg.ReadTimeout = readTimeout
	return New(cfg, pl)
}
