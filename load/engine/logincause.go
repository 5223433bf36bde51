package engine

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/imbench/imbench/load/verify"
)

// LoginCause is why a login attempt failed, as the tallies count it
// (verify.Tally.LoginFailed and LoginRetried, indexed by it).
type LoginCause int

const (
	// LoginClosed: the server closed the connection (EOF, reset) before it
	// answered the login. A server dropping logins in a burst does this.
	LoginClosed LoginCause = iota
	// LoginNoAnswer: no answer within the timeout, or the server closed
	// the connection only after a silence as long as its limit for a
	// connection that is not logged in. A server that answers a refused
	// login with silence (WuKongIM) does this too.
	LoginNoAnswer
	// LoginRefused: the server answered with a refusal (a reason or error
	// code). Not retried: it will say the same again.
	LoginRefused
	// LoginOther: anything else: the dial, TLS, a malformed answer.
	LoginOther
	// LoginConnRefused: the dial was refused, nothing listened: a server
	// (or one of its gateways) restarting, or down. Retried.
	LoginConnRefused
	// LoginOpenFiles: this process could not open a socket, its open
	// files at their limit (EMFILE: ulimit -n; ENFILE: the system's).
	LoginOpenFiles
	// LoginPorts: no local address or port left to dial from
	// (EADDRNOTAVAIL: the ephemeral ports of this source address used up).
	LoginPorts
)

// String is the cause's tag value (verify.LoginCauseName).
func (c LoginCause) String() string { return verify.LoginCauseName(int(c)) }

// Errors a driver wraps (%w) into a failed login's error to say which cause
// it was; CauseOf also recognises the transport's own errors.
var (
	ErrLoginClosed   = errors.New("the server closed the connection before answering the login")
	ErrLoginNoAnswer = errors.New("the server did not answer the login")
	ErrLoginRefused  = errors.New("the server refused the login")
)

// CauseOf classifies a failed login's error: a driver's wrapped
// ErrLogin* first (or ErrUnanswered: a login's request not answered in
// time), then the transport's errors (EOF or reset: closed; a timeout: no
// answer), then other.
func CauseOf(err error) LoginCause {
	switch {
	case errors.Is(err, ErrLoginRefused):
		return LoginRefused
	case errors.Is(err, ErrLoginNoAnswer), errors.Is(err, ErrUnanswered):
		return LoginNoAnswer
	case errors.Is(err, ErrLoginClosed):
		return LoginClosed
	case errors.Is(err, syscall.ECONNREFUSED):
		return LoginConnRefused
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return LoginOpenFiles
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return LoginPorts
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return LoginClosed
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, syscall.ETIMEDOUT):
		return LoginNoAnswer
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return LoginNoAnswer
	}
	return LoginOther
}

// retryable reports whether another attempt may succeed where this one
// failed: not after a refusal, nor when the server lost its state.
func retryable(err error) bool {
	return !errors.Is(err, ErrStateLost) && !errors.Is(err, errSessionClosed) && CauseOf(err) != LoginRefused
}

type retryKey struct{}

// WithRetry marks ctx as the n-th retry of a first login that failed (0:
// the first attempt). Unlike WithAttempt it says nothing about the server
// having known the user: no login succeeded yet.
func WithRetry(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, retryKey{}, n)
}

// Retry is the retry of a first login a Connect is for, 0 for its first
// attempt (and for reconnects: see Attempt).
func Retry(ctx context.Context) int {
	n, _ := ctx.Value(retryKey{}).(int)
	return n
}
