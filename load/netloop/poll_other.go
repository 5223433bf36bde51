//go:build !linux

package netloop

import (
	"net"
	"time"
)

const pollSupported = false

func attachPoll(*net.TCPConn, Handler, time.Duration) (Stream, error) {
	panic("netloop: epoll is Linux only")
}
