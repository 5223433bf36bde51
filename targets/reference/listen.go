package main

import (
	"context"
	"net"
)

// listenTCP listens on addr without TCP keepalive on the connections it
// accepts. Each front end has its protocol's heartbeat and read deadline,
// and a gateway's link to the core ends with its process. Go's default
// probe after 15 s of silence adds, at a quarter of a million idle clients
// pinging every 20 s, 25,000 packets a second through loopback, which the
// kernel drops when starved, and with them the clients' pings.
func listenTCP(addr string) (net.Listener, error) {
	lc := net.ListenConfig{KeepAlive: -1}
	return lc.Listen(context.Background(), "tcp", addr)
}
