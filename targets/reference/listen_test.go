package main

import (
	"net"
	"syscall"
	"testing"
)

// Connections the target accepts carry no TCP keepalive; each front end
// has its protocol's read deadline.
func TestAcceptedConnectionsHaveNoKeepalive(t *testing.T) {
	l, err := listenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	raw, err := a.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	on, serr := -1, error(nil)
	raw.Control(func(fd uintptr) { on, serr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE) })
	if serr != nil || on != 0 {
		t.Fatalf("SO_KEEPALIVE %d (%v) on an accepted connection", on, serr)
	}
}
