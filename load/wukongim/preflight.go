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

	"github.com/imbench/imbench/load/httpanswer"
	"github.com/imbench/imbench/load/ws"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// managerUID is the uid WuKongIM logs in with its managerToken, not a
// user's token (event_connect.go: options.ManagerUID): a login that
// registers nothing and needs no user.
const managerUID = "____manager"

// errDropped is a connection the server closed before any answer.
var errDropped = errors.New("closed before any answer")

// connackFrom logs in at gw as the manager, with the managerToken (any
// token where the server has none), and reads its answer: a WuKongIM
// answers a CONNACK within 5 s, where a port serving something else
// answers otherwise, or not at all. The connection is closed at once.
func connackFrom(ctx context.Context, gw *url.URL, cfg Config) error {
	_, err := connectAs(ctx, gw, cfg, managerUID, cfg.Token)
	return err
}

// connectAs logs uid in at gw with token and returns its CONNACK's reason.
func connectAs(ctx context.Context, gw *url.URL, cfg Config, uid, token string) (wire.ReasonCode, error) {
	who := "a user's"
	if uid == managerUID {
		who = "the manager's"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", hostPort(gw))
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	defer context.AfterFunc(ctx, func() { nc.SetDeadline(time.Now()) })() // a cancel ends the wait
	deadline, _ := ctx.Deadline()
	nc.SetDeadline(deadline)
	if gw.Scheme == "wss" {
		tc := tls.Client(nc, &tls.Config{ServerName: gw.Hostname()})
		if err := tc.HandshakeContext(ctx); err != nil {
			return 0, err
		}
		nc = tc
	}
	isWS := gw.Scheme == "ws" || gw.Scheme == "wss"
	var buf []byte
	if isWS {
		if buf, err = ws.Handshake(ctx, nc, gw, 5*time.Second); err != nil {
			return 0, fmt.Errorf("no WebSocket upgrade: %w", err)
		}
	}
	kp, err := wire.GenerateKey(nil)
	if err != nil {
		return 0, err
	}
	version := uint8(cfg.Version)
	frame, err := wire.Connect{Version: version, DeviceFlag: uint8(cfg.DeviceFlag), UID: uid, Token: token,
		DeviceID: "imbench-preflight-" + strconv.FormatInt(time.Now().UnixNano(), 36), ClientTimestamp: time.Now().UnixMilli(),
		ClientKey: kp.PublicKeyBase64()}.Append(nil, version)
	if err != nil {
		return 0, err
	}
	if isWS {
		frame = ws.AppendFrame(nil, ws.OpBinary, frame)
	}
	if _, err := nc.Write(frame); err != nil {
		return 0, err
	}
	chunk := make([]byte, 4096)
	for {
		stream := buf
		if isWS {
			op, body, _, ok, err := ws.FirstMessage(buf)
			switch {
			case err != nil:
				return 0, fmt.Errorf("a CONNECT was answered with no WebSocket frame (%v)", err)
			case ok && op != ws.OpBinary:
				return 0, fmt.Errorf("a CONNECT was answered with a WebSocket message of op %d, not a CONNACK", op)
			}
			stream = body
		}
		if line, ok := httpanswer.StatusLine(stream); ok && !isWS {
			return 0, fmt.Errorf("a CONNECT was answered in HTTP (%q), not with a CONNACK", line)
		}
		if len(stream) > 0 {
			t, flags, body, n, err := wire.SplitFrame(stream)
			switch {
			case err != nil:
				return 0, fmt.Errorf("a CONNECT was answered with bytes that are no WuKongIM frame (%v)", err)
			case n > 0 && t != wire.TypeConnack:
				return 0, fmt.Errorf("a CONNECT was answered with a %s, not a CONNACK", t)
			case n > 0:
				ack, err := wire.DecodeConnack(flags, body, version)
				if err != nil {
					return 0, fmt.Errorf("a CONNECT was answered with a CONNACK that does not decode (%v)", err)
				}
				return ack.ReasonCode, nil
			}
		}
		n, err := nc.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return 0, fmt.Errorf("no CONNACK to %s CONNECT within 5 s", who)
			}
			return 0, fmt.Errorf("no CONNACK to %s CONNECT (%v): %w", who, err, errDropped)
		}
	}
}
