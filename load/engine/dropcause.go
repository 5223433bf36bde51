package engine

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/imbench/imbench/load/netloop"
	"github.com/imbench/imbench/load/verify"
)

// Drop causes, in verify.DropCauseName's order.
const (
	DropServerClosed = iota // the server closed or reset the connection
	DropHeartbeat           // nothing from the server within the read timeout: pings unanswered
	DropKicked              // the server logged this login out on purpose
	DropReadError           // anything else the connection failed with
)

var _ = [1]int{}[verify.DropCauses-4] // the two lists agree

// DropCauseOf classifies why an established connection ended.
func DropCauseOf(err error, kicked bool) int {
	var ne net.Error
	switch {
	case kicked:
		return DropKicked
	case errors.Is(err, netloop.ErrReadTimeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, syscall.ETIMEDOUT),
		errors.As(err, &ne) && ne.Timeout():
		return DropHeartbeat
	case err == nil, errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed), errors.Is(err, ErrLoginClosed):
		return DropServerClosed
	}
	return DropReadError
}
