package openim

import (
	"context"

	"github.com/imbench/imbench/load/engine"
)

// DialToken logs user u in with a given token, for tests of refusals.
func (d *Driver) DialToken(ctx context.Context, u uint32, token string, h engine.Handler) (engine.Conn, error) {
	return d.dial(ctx, u, token, h)
}

// Token exposes the cached-token lookup.
func (d *Driver) Token(ctx context.Context, u uint32) (string, error) { return d.token(ctx, u, false) }

// Trace records every request the driver's connections make: a WebSocket
// request by its identifier, a REST call by its route. Set it before any.
func (d *Driver) Trace(f func(u uint32, req string)) { d.trace = f }

// SDKMsgID is a clientMsgID as the SDK-faithful login makes them.
func SDKMsgID(sendID string) string { return sdkMsgID(sendID) }
