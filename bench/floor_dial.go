package bench

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/imbench/imbench/load/netloop"
)

// gatewayOf is user i's gateway among the comma-separated ones.
func gatewayOf(gateways string, i int) (*url.URL, error) {
	all := strings.Split(gateways, ",")
	return url.Parse(strings.TrimSpace(all[i%len(all)]))
}

func dialFloor(ctx context.Context, u *url.URL) (net.Conn, error) {
	d := net.Dialer{Timeout: floorTimeout, KeepAlive: -1} // as the generator's (engine.SourceDialer)
	return d.DialContext(ctx, "tcp", u.Host)
}

// attach hands nc to netloop with h as its handler; rest, the bytes the
// handshake read past its answer, reach h first.
func (c *floorBase) attach(nc net.Conn, h netloop.Handler, rest []byte) error {
	st, err := netloop.Attach(nc, h, 0, netloop.DefaultMode)
	if err != nil {
		nc.Close()
		return err
	}
	c.st = st // before Start: the pending bytes may need an answer
	return st.Start(rest)
}

// readAnswer reads nc (under ctx's deadline) until split finds a whole
// frame in what was read; it returns the bytes and the frame's length.
func readAnswer(ctx context.Context, nc net.Conn, split func([]byte) (int, error)) ([]byte, int, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(floorTimeout)
	}
	nc.SetReadDeadline(deadline)
	defer nc.SetReadDeadline(time.Time{})
	var buf []byte
	chunk := make([]byte, 4096)
	for {
		if len(buf) > 0 {
			n, err := split(buf)
			if err != nil || n > 0 {
				return buf, n, err
			}
		}
		k, err := nc.Read(chunk)
		buf = append(buf, chunk[:k]...)
		if err != nil {
			if k > 0 {
				continue
			}
			return nil, 0, errors.Join(errors.New("no answer to the login"), err)
		}
	}
}
