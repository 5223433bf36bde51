package wildfire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/imbench/imbench/load/awaiting"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/netloop"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// LoginError is a CONNACK that refused the login.
type LoginError struct {
	User string
	Code wire.ConnectReturnCode
}

func (e *LoginError) Error() string {
	hint := ""
	switch e.Code {
	case wire.ConnackBadUsernameOrPassword:
		hint = ": the token's password did not decrypt for this user"
	case wire.ConnackSessionNotExist:
		hint = ": the server has no session for this client id (get_token not called, or the session was kicked)"
	}
	return fmt.Sprintf("login of %s refused: CONNACK code %d %s%s", e.User, e.Code, e.Code, hint)
}

// Unwrap makes a refusal engine.ErrLoginRefused to the engine: counted as
// refused, not retried. A server busy (3) or not the user's node (6) may
// take the login again: that is retried.
func (e *LoginError) Unwrap() error {
	if e.Code == wire.ConnackServerUnavailable || e.Code == wire.ConnackUnexpectedNode {
		return nil
	}
	return engine.ErrLoginRefused
}

// dial connects user u: its session, the TCP connection, CONNECT and
// nothing else until the CONNACK.
func (d *Driver) dial(ctx context.Context, u uint32, h engine.Handler) (*conn, error) {
	uid := d.users[u]
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	s, err := d.session(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	nc, err := d.dialer.DialContext(ctx, "tcp", engine.GatewayFor(ctx, d.gateways, u))
	if err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	c := &conn{d: d, user: u, uid: uid, h: h, s: s}
	c.acks = awaiting.New[uint16](d.cfg.Timeout, c.unanswered)
	c.wrote.Store(time.Now().UnixNano()) // the CONNECT, which its CONNACK answers
	head, rest, err := c.handshake(ctx, nc)
	if err != nil {
		nc.Close()
		var le *LoginError
		if errors.As(err, &le) {
			if le.Code == wire.ConnackSessionNotExist && engine.Attempt(ctx) > 0 {
				return nil, fmt.Errorf("%w: %v", engine.ErrStateLost, le)
			}
			return nil, le
		}
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	if err := d.stateLost(u, head); err != nil {
		nc.Close()
		return nil, err
	}
	c.startFeeds(head, d.logins[u].Load())
	if c.st, err = netloop.Attach(nc, c, d.cfg.ReadTimeout, netloop.DefaultMode); err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	if err := c.st.Start(rest); err != nil {
		return nil, fmt.Errorf("login of %s: %w", uid, err)
	}
	d.logins[u].Store(true)
	return c, nil
}

// stateLost tells whether a CONNACK's message head is below a message the
// user's pulls have shown: the server lost its state.
func (d *Driver) stateLost(u uint32, head int64) error {
	if had := d.held[u].Load(); head < had {
		return fmt.Errorf("%w: the CONNACK's message head for %s is %d, below the %d it delivered", engine.ErrStateLost, d.users[u], head, had)
	}
	return nil
}

// handshake sends CONNECT and reads the CONNACK; it returns the user's
// message head and the bytes read past the CONNACK.
func (c *conn) handshake(ctx context.Context, nc net.Conn) (int64, []byte, error) {
	d := c.d
	pw := wire.ConnectPassword(c.s.cipher, c.s.desToken, wire.HourNow())
	frame, err := wire.NewConnect(c.s.clientID, c.uid, pw, uint16(d.cfg.KeepAlive)).Append(nil)
	if err != nil {
		return 0, nil, err
	}
	deadline, _ := ctx.Deadline()
	nc.SetDeadline(deadline)
	defer nc.SetDeadline(time.Time{})
	if _, err := nc.Write(frame); err != nil {
		return 0, nil, err
	}
	var buf []byte
	chunk := make([]byte, 4096)
	for {
		t, _, body, n, err := wire.SplitFrame(buf)
		if err != nil {
			return 0, nil, err
		}
		if n > 0 {
			if t != wire.TypeConnack {
				return 0, nil, fmt.Errorf("expected a CONNACK, got %s", t)
			}
			ack, err := wire.DecodeConnack(body)
			if err != nil {
				return 0, nil, err
			}
			if ack.ReturnCode != wire.ConnackAccepted {
				return 0, nil, &LoginError{User: c.uid, Code: ack.ReturnCode}
			}
			p, err := ack.Ack()
			if err != nil {
				return 0, nil, fmt.Errorf("CONNACK payload: %w", err)
			}
			return p.GetMsgHead(), buf[n:], nil
		}
		k, err := nc.Read(chunk)
		buf = append(buf, chunk[:k]...)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return 0, nil, fmt.Errorf("no CONNACK within %s", d.cfg.Timeout)
			}
			if len(buf) == 0 {
				return 0, nil, fmt.Errorf("the server closed the connection before a CONNACK (%w)", err)
			}
			return 0, nil, err
		}
	}
}
