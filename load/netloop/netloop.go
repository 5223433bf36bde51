// Package netloop reads many client connections with few goroutines.
//
// A load generator holding tens of thousands of mostly idle sockets pays,
// with one reader goroutine per socket, for a goroutine stack each and, per
// message, a scheduler wake-up plus a second read that only finds the socket
// empty. On Linux netloop instead takes the socket out of Go's netpoller and
// watches it from one of a few epoll loops, each reading whatever is ready in
// a single read per socket and handing the bytes to the connection's handler
// on the loop goroutine. Elsewhere, and for connections that are not plain
// TCP (TLS), it falls back to one reader goroutine per connection with the
// same contract, so callers have a single code path.
package netloop

import (
	"errors"
	"net"
	"os"
	"time"
)

// Handler receives a connection's bytes. Calls for one connection come one
// at a time from a single goroutine; they must not block for long since, in
// epoll mode, that goroutine serves many other connections.
type Handler interface {
	// OnData gets the bytes read; b is only valid during the call. A non-nil
	// error ends the connection with that error.
	OnData(b []byte) error
	// OnClose is called once, when the connection has ended for any reason:
	// ErrClosed after Close, ErrReadTimeout after silence, io.EOF when the
	// peer closed, the error otherwise.
	OnClose(err error)
}

// Stream is an attached connection.
type Stream interface {
	// Start begins reading. pending are bytes already read from the
	// connection (what a handshake's buffered reader held past the response);
	// they reach OnData first, on the caller's goroutine. If that fails the
	// connection is closed without OnClose and the error returned.
	Start(pending []byte) error
	// Write writes all of b or fails (and then ends the connection, since a
	// partial write leaves the byte stream unusable).
	Write(b []byte, timeout time.Duration) error
	// Close ends the connection; OnClose follows with ErrClosed.
	Close() error
	// FlushAfter has the handler, a Flusher, flushed about d from now on
	// the goroutine that calls its OnData; a call while a flush is due
	// changes nothing. Called only from OnData. Where no loop serves the
	// connection (reader goroutines, bytes handed to Start) the flush is
	// at once. A loop flushes in the order asked, so its connections
	// should share one delay. No flush comes after OnClose.
	FlushAfter(d time.Duration)
}

// Flusher is a Handler that holds writes back to send several together
// (acknowledgements, say): one write instead of one per message.
type Flusher interface {
	Flush()
}

var (
	// ErrClosed is the OnClose error after Close.
	ErrClosed = errors.New("connection closed")
	// ErrReadTimeout is the OnClose error after readTimeout of silence.
	ErrReadTimeout = errors.New("no data from the server within the read timeout")
	// ErrWriteTimeout is returned by Write when the socket would not take the
	// bytes in time.
	ErrWriteTimeout = errors.New("write timed out")
)

// Mode selects how connections are read.
type Mode int

const (
	// Auto uses epoll where it can and a reader goroutine otherwise.
	Auto Mode = iota
	// Goroutines always uses one reader goroutine per connection.
	Goroutines
)

// DefaultMode is Auto unless IMBENCH_NETLOOP=goroutines, which lets a
// benchmark measure what the loops save.
var DefaultMode = modeFromEnv()

func modeFromEnv() Mode {
	if os.Getenv("IMBENCH_NETLOOP") == "goroutines" {
		return Goroutines
	}
	return Auto
}

// Attach takes ownership of nc; reading starts with Stream.Start, so that the
// caller can keep the Stream before any OnData needs it. readTimeout > 0 ends
// the connection after that long without a byte from the peer.
func Attach(nc net.Conn, h Handler, readTimeout time.Duration, mode Mode) (Stream, error) {
	if tc, ok := nc.(*net.TCPConn); ok && mode == Auto && pollSupported {
		return attachPoll(tc, h, readTimeout)
	}
	return &goConn{nc: nc, h: h, timeout: readTimeout}, nil
}
