package openim

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/imbench/imbench/load/awaiting"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/netloop"
	"github.com/imbench/imbench/load/ws"
	wire "github.com/imbench/imbench/wire/openim"
)

// LoginError is a handshake the gateway refused, with its errCode.
type LoginError struct {
	User string
	Code int
	Msg  string
	Dlt  string
}

func (e *LoginError) Error() string {
	s := fmt.Sprintf("login of %s refused: errCode %d %s", e.User, e.Code, e.Msg)
	if e.Dlt != "" {
		s += ": " + firstLine(e.Dlt)
	}
	return s
}

// Unwrap makes a refusal engine.ErrLoginRefused to the engine: counted as
// refused, not retried. The server's own failure (500) and a gateway at
// its connection limit (1601) may take the login again: that is retried.
func (e *LoginError) Unwrap() error {
	if e.Code == wire.CodeServerInternal || e.Code == wire.CodeConnOverMax {
		return nil
	}
	return engine.ErrLoginRefused
}

// loginURL is the gateway URL that logs uid in: the login is in the query
// (openim.md §1.2). The SDK-faithful login's is the Go SDK's
// (internal/interaction/long_conn_mgr.go reConn): an operationID like its
// own, its version, and no sdkType unless the envelope is JSON (the Go SDK
// sends none; the gateway's default is gob).
func loginURL(cfg Config, gateway, uid, token string) string {
	q := url.Values{}
	q.Set("sendID", uid)
	q.Set("token", token)
	q.Set("platformID", strconv.Itoa(cfg.Platform))
	q.Set("isBackground", "false")
	if cfg.Login == LoginSDK {
		q.Set("operationID", sdkOperationID())
		q.Set("sdkVersion", sdkVersion)
		if cfg.Envelope != wire.Gob {
			q.Set("sdkType", cfg.Envelope.SDKType())
		}
	} else {
		q.Set("operationID", "imbench-login-"+uid)
		q.Set("sdkType", cfg.Envelope.SDKType())
	}
	if cfg.Gzip {
		q.Set("compression", "gzip")
	}
	if cfg.MsgResp {
		q.Set("isMsgResp", "true")
	}
	return gateway + "/?" + q.Encode()
}

func (d *Driver) dial(ctx context.Context, u uint32, token string, h engine.Handler) (*conn, error) {
	uid := d.users[u]
	wsURL, err := url.Parse(loginURL(d.cfg, engine.GatewayFor(ctx, d.gateways, u), uid, token))
	if err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	dialed := time.Now()
	nc, err := d.dialer.DialContext(ctx, "tcp", hostPort(wsURL))
	if err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	if wsURL.Scheme == "wss" {
		tc := tls.Client(nc, &tls.Config{ServerName: wsURL.Hostname()})
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, fmt.Errorf("login of %s: %w", uid, err)
		}
		nc = tc
	}
	rest, err := ws.Handshake(ctx, nc, wsURL, d.cfg.Timeout)
	if err == nil && d.cfg.MsgResp {
		rest, err = readAuth(nc, rest, uid, d.cfg.Timeout)
	}
	if err != nil {
		nc.Close()
		var he *ws.HandshakeError
		var le *LoginError
		switch {
		case errors.As(err, &le):
			return nil, le
		case errors.As(err, &he):
			if le := parseLoginError(uid, he.Body); le != nil {
				return nil, le
			}
			return nil, fmt.Errorf("login of %s: handshake refused with HTTP %d: %s", uid, he.Status, firstLine(string(he.Body)))
		}
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	c := &conn{d: d, user: u, uid: uid, h: h,
		codec: wire.Codec{Envelope: d.cfg.Envelope, Gzip: d.cfg.Gzip}, dialed: dialed, token: token}
	c.pending = awaiting.New[string](d.cfg.Timeout, c.unanswered)
	if d.local != nil {
		c.local = d.localOf(u)
	}
	c.rd.Max = maxFrame
	if c.st, err = netloop.Attach(nc, c, d.cfg.ReadTimeout, netloop.DefaultMode); err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	if err := c.st.Start(rest); err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	return c, nil
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "wss" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// readAuth reads the text frame an isMsgResp gateway sends first: the auth
// result. It returns the bytes read past it.
func readAuth(nc net.Conn, buf []byte, uid string, timeout time.Duration) ([]byte, error) {
	nc.SetReadDeadline(time.Now().Add(timeout))
	defer nc.SetReadDeadline(time.Time{})
	chunk := make([]byte, 4096)
	for {
		op, body, rest, ok, err := ws.FirstMessage(buf)
		if err != nil {
			return nil, err
		}
		if ok {
			le := parseLoginError(uid, body)
			if op != ws.OpText || le == nil {
				return nil, fmt.Errorf("unexpected first frame %q", firstLine(string(body)))
			}
			if le.Code != 0 {
				return nil, le
			}
			return rest, nil
		}
		n, err := nc.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if err != nil {
			return nil, fmt.Errorf("no auth result: %w", err)
		}
	}
}

// parseLoginError reads the gateway's login answer; nil means body is not one.
func parseLoginError(uid string, body []byte) *LoginError {
	a, ok := wire.ParseLoginAnswer(body)
	if !ok {
		return nil
	}
	return &LoginError{User: uid, Code: a.ErrCode, Msg: a.ErrMsg, Dlt: a.ErrDlt}
}
