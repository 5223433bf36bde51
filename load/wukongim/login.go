package wukongim

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
	wire "github.com/imbench/imbench/wire/wukongim"
)

const maxFrame = wire.MaxRemainingLength + 5

// LoginError is a CONNACK that refused the login.
type LoginError struct {
	User   string
	Reason wire.ReasonCode
}

func (e *LoginError) Error() string {
	return fmt.Sprintf("login of %s refused: CONNACK reason %d %s", e.User, e.Reason, e.Reason)
}

// Unwrap makes a refusal engine.ErrLoginRefused to the engine's tallies.
func (e *LoginError) Unwrap() error { return engine.ErrLoginRefused }

// silenceLimit tells a server that dropped a login from one that stayed
// silent: a real WuKongIM closes a connection that sent no CONNECT after
// ≈ 3 s and one whose login it refused after ≈ 6 s (wukongim.md §13), so a
// close sooner than this after the CONNECT was no timer of its: it
// dropped the login.
const silenceLimit = 2 * time.Second

// dial connects user u: the transport, then CONNECT and nothing else until
// the CONNACK (the server closes a connection that sends more first).
func (d *Driver) dial(ctx context.Context, u uint32, h engine.Handler) (*conn, error) {
	uid := d.users[u]
	gw, err := url.Parse(engine.GatewayFor(ctx, d.gateways, u))
	if err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	nc, err := d.dialer.DialContext(ctx, "tcp", hostPort(gw))
	if err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	c := &conn{d: d, user: u, uid: uid, h: h, ws: gw.Scheme == "ws" || gw.Scheme == "wss",
		version: uint8(d.cfg.Version)}
	c.acks = awaiting.New[uint32](d.cfg.Timeout, c.unanswered)
	c.wsrd.Max = maxFrame
	rest, err := c.handshake(ctx, nc, gw)
	if err != nil {
		nc.Close()
		var le *LoginError
		if errors.As(err, &le) {
			return nil, le
		}
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	if c.st, err = netloop.Attach(nc, c, d.cfg.ReadTimeout, netloop.DefaultMode); err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	if err := c.st.Start(rest); err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	return c, nil
}

// handshake logs in on nc and returns the bytes read past the CONNACK.
func (c *conn) handshake(ctx context.Context, nc net.Conn, gw *url.URL) ([]byte, error) {
	d := c.d
	var rest []byte
	if gw.Scheme == "wss" {
		tc := tls.Client(nc, &tls.Config{ServerName: gw.Hostname()})
		if err := tc.HandshakeContext(ctx); err != nil {
			return nil, err
		}
		nc = tc
	}
	if c.ws {
		var err error
		if rest, err = ws.Handshake(ctx, nc, gw, d.cfg.Timeout); err != nil {
			return nil, err
		}
	}
	kp, err := wire.GenerateKey(nil)
	if err != nil {
		return nil, err
	}
	connect := wire.Connect{Version: c.version, DeviceFlag: uint8(d.cfg.DeviceFlag),
		DeviceID: c.uid + "-" + strconv.FormatUint(d.conns.Add(1), 36), UID: c.uid,
		Token: d.token(c.user), ClientTimestamp: time.Now().UnixMilli(), ClientKey: kp.PublicKeyBase64()}
	frame, err := connect.Append(nil, c.version)
	if err != nil {
		return nil, err
	}
	if c.ws {
		frame = ws.AppendFrame(nil, ws.OpBinary, frame)
	}
	deadline, _ := ctx.Deadline()
	nc.SetDeadline(deadline)
	defer nc.SetDeadline(time.Time{})
	if _, err := nc.Write(frame); err != nil {
		return nil, err
	}
	sent := time.Now()
	ack, rest, err := c.readConnack(nc, rest)
	if err != nil {
		return nil, c.noConnack(ctx, err, time.Since(sent))
	}
	if ack.ReasonCode != wire.ReasonSuccess {
		return nil, &LoginError{User: c.uid, Reason: ack.ReasonCode}
	}
	c.version = ack.Version(c.version)
	if ack.ServerKey != "" {
		if c.cipher, err = kp.Cipher(ack.ServerKey, ack.Salt); err != nil {
			return nil, err
		}
	}
	return rest, nil
}

// noConnack says why a login got no CONNACK, naming the likely causes in
// the order the evidence supports them. A real WuKongIM answers a refused
// login (a wrong token or device flag) with silence and closes it ≈ 6 s
// later; in a login burst it also drops a few logins it accepted: it
// closes the connection before writing the CONNACK ("writeFrame: conn not
// exist" in its log), or the CONNACK never comes (wukongim.md §14). A
// retry tells them apart: a dropped login gets through, so once a user's
// retries met silence too, a refusal is named first.
func (c *conn) noConnack(ctx context.Context, err error, after time.Duration) error {
	var ne net.Error
	timedOut := errors.As(err, &ne) && ne.Timeout()
	closed := !timedOut && engine.CauseOf(err) == engine.LoginClosed
	dropped := "the server dropped the login's answer, as a real WuKongIM does to a few logins of a burst (a retry gets through)"
	refused := fmt.Sprintf("the server refused the login, which WuKongIM answers with silence: a wrong token "+
		"(/user/token keeps one per user and device flag) or device flag (IM_DEVICE_FLAG, %d here)", c.d.cfg.DeviceFlag)
	first, second := dropped, refused
	if engine.Retry(ctx) >= 2 {
		first, second = refused, dropped+", or it is overloaded"
	}
	switch {
	case closed && after < silenceLimit:
		return &loginFailure{errs: []error{engine.ErrLoginClosed, err}, msg: fmt.Sprintf(
			"the server closed the connection %s the CONNECT, before any CONNACK (%v): it dropped the login, "+
				"as a real WuKongIM does to a few logins of a burst (\"writeFrame: conn not exist\" in its log; a retry gets through); "+
				"or it could not take the CONNECT (protocol version %d)", soon(after), err, c.version)}
	case closed:
		return &loginFailure{errs: []error{engine.ErrLoginNoAnswer, err}, msg: fmt.Sprintf(
			"no CONNACK: the server closed the connection %s after the CONNECT, as WuKongIM closes a connection "+
				"that is not logged in: %s; or %s", after.Round(100*time.Millisecond), first, second)}
	case timedOut:
		return &loginFailure{errs: []error{engine.ErrLoginNoAnswer, err}, msg: fmt.Sprintf(
			"no CONNACK within %s: %s; or %s", c.d.cfg.Timeout, first, second)}
	}
	return fmt.Errorf("no CONNACK: %w", err)
}

// soon says how soon after something a close came.
func soon(d time.Duration) string {
	if d < time.Millisecond {
		return "right after"
	}
	return d.Round(time.Millisecond).String() + " after"
}

// loginFailure is a failed login's error as the user reads it, carrying
// its engine.ErrLogin* cause for the tallies.
type loginFailure struct {
	msg  string
	errs []error
}

func (e *loginFailure) Error() string   { return e.msg }
func (e *loginFailure) Unwrap() []error { return e.errs }

// readConnack reads until a whole CONNACK; what follows it is returned (raw
// transport bytes: WebSocket frames over ws).
func (c *conn) readConnack(nc net.Conn, buf []byte) (wire.Connack, []byte, error) {
	chunk := make([]byte, 4096)
	for {
		stream, rest := buf, []byte(nil)
		if c.ws {
			op, body, after, ok, err := ws.FirstMessage(buf)
			if err != nil {
				return wire.Connack{}, nil, err
			}
			stream, rest = nil, buf
			if ok {
				if op != ws.OpBinary {
					return wire.Connack{}, nil, fmt.Errorf("unexpected WebSocket message (op %d) before the CONNACK", op)
				}
				stream, rest = body, after
			}
		}
		if len(stream) > 0 {
			t, flags, body, n, err := wire.SplitFrame(stream)
			if err != nil {
				return wire.Connack{}, nil, err
			}
			if n > 0 {
				if t != wire.TypeConnack {
					return wire.Connack{}, nil, fmt.Errorf("expected a CONNACK, got %s", t)
				}
				ack, err := wire.DecodeConnack(flags, body, c.version)
				if !c.ws {
					rest = stream[n:]
				}
				return ack, rest, err
			}
		}
		n, err := nc.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if err != nil {
			return wire.Connack{}, nil, err
		}
	}
}
