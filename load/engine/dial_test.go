package engine

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"
)

// keepAlive reports whether TCP keepalive is on for c's socket.
func keepAlive(t *testing.T, c net.Conn) bool {
	t.Helper()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var on int
	var serr error
	if err := raw.Control(func(fd uintptr) { on, serr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE) }); err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	return on != 0
}

// The generator's connections carry no TCP keepalive: the protocols'
// heartbeats are the liveness check, and Go would probe every 15 s.
func TestSourceDialerLeavesKeepaliveOff(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			defer c.Close()
			time.Sleep(time.Second)
		}
	}()
	d := &SourceDialer{Timeout: 5 * time.Second}
	c, err := d.DialContext(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if keepAlive(t, c) {
		t.Fatal("TCP keepalive is on")
	}
	var plain net.Dialer // the check itself: Go's default is on
	c2, err := plain.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if !keepAlive(t, c2) {
		t.Fatal("the check reads keepalive off on a default dial too")
	}
}
