package wukongim

import (
	"errors"
	"net"
	"time"

	wire "github.com/imbench/imbench/wire/wukongim"
)

var pong = wire.AppendPong(nil)

// disconnectAnswer answers a client's DISCONNECT before the close (see the
// package comment).
var disconnectAnswer, _ = wire.Disconnect{}.Append(nil, wire.LatestVersion)

// readLoop handles a logged-in connection's frames until it ends. A
// connection silent for the read timeout is dropped and counted; a frame
// that does not decode ends it.
func (c *conn) readLoop(r *frameReader) {
	m := c.g.f.Metrics
	deadline := func() time.Time { return time.Now().Add(c.g.readTimeout) }
	for {
		typ, flags, body, err := r.next(deadline)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && !c.ended() {
				m.HeartbeatTimeout()
			}
			return
		}
		c.stats.inPackets.Add(1)
		c.stats.inBytes.Add(int64(len(body) + 2)) // the fixed header and at least one length byte
		c.stats.lastActivity.Store(time.Now().UnixNano())
		switch typ {
		case wire.TypePing:
			m.pings.Inc()
			if c.enqueue(frame{data: pong, at: time.Now()}) {
				m.pongs.Inc()
			}
		case wire.TypeSend:
			if !c.onSend(flags, body) {
				return
			}
		case wire.TypeRecvack:
			a, err := wire.DecodeRecvack(flags, body, c.version)
			if err != nil {
				return
			}
			m.recvackPackets.Inc()
			c.ack(a)
		case wire.TypeDisconnect:
			c.end(disconnectAnswer)
			return
		}
		// Anything else (SUB, a second CONNECT, a server's packet type) is
		// ignored, as v2.2.x ignores SUB.
	}
}
