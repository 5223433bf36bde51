package engine

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"time"
)

// ParseSourceAddrs reads a target's sourceAddrs option: the local
// addresses to spread connections over.
func ParseSourceAddrs(raw []string) ([]net.IP, error) {
	var out []net.IP
	for _, a := range raw {
		ip := net.ParseIP(a)
		if ip == nil {
			return nil, fmt.Errorf("source address %q is not an IP", a)
		}
		out = append(out, ip)
	}
	return out, nil
}

// ParseTimeout reads a target's timeout option; "" is 0, the protocol's
// default.
func ParseTimeout(raw string) (time.Duration, error) {
	if raw == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("timeout %q is not a positive duration", raw)
	}
	return d, nil
}

// SourceDialer dials TCP from each of Addrs in turn (the system's choice
// when there are none): every local address has its own ephemeral ports
// towards one gateway, so a process can hold more connections to it.
type SourceDialer struct {
	Timeout time.Duration
	Addrs   []net.IP
	next    atomic.Uint64
}

// DialContext implements the dial function of net/http and websocket.
// Without TCP keepalive: the protocol's own heartbeat is what tells a live
// connection here. Go's default probes after 15 s of silence, so with pings
// every 20 s each connection adds a probe and its answer per ping: at a
// quarter of a million idle users, 25,000 packets a second through
// loopback, which the kernel drops when starved.
func (d *SourceDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nd := net.Dialer{Timeout: d.Timeout, KeepAlive: -1}
	if len(d.Addrs) > 0 {
		nd.LocalAddr = &net.TCPAddr{IP: d.Addrs[int((d.next.Add(1)-1)%uint64(len(d.Addrs)))]}
	}
	return nd.DialContext(ctx, network, addr)
}
