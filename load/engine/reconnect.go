package engine

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// ErrStateLost marks a login refused because the server no longer knows
// what it told the client before: the user, its token's account, or seqs
// it had already delivered. Retrying cannot help; the run ends saying so.
var ErrStateLost = errors.New("the server lost its state")

// backoff is the wait before reconnect attempt n (1-based): doubling from
// base up to ceiling, each wait drawn from its upper half so that users
// dropped together do not come back together.
func backoff(n int, base, ceiling time.Duration) time.Duration {
	d := base
	for i := 1; i < n && d < ceiling; i++ {
		d *= 2
	}
	d = min(d, ceiling)
	half := d / 2
	return half + rand.N(half+1)
}

type attemptKey struct{}

// WithAttempt marks ctx as the n-th reconnect attempt (0: a first login).
func WithAttempt(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, attemptKey{}, n)
}

// Attempt is the reconnect attempt a Connect is for, 0 for a first login:
// a driver with several gateways moves a user to the next one on each
// attempt, so that users of a gateway that is down log in elsewhere.
func Attempt(ctx context.Context) int {
	n, _ := ctx.Value(attemptKey{}).(int)
	return n
}

// Fail ends the run early for a reason no retry can mend: every session's
// context is cancelled with it, and Failure returns it from then on (the
// runner aborts the run with it: one line, exit 108).
func (sh *Shared) Fail(err error) {
	if !sh.failure.CompareAndSwap(nil, &err) {
		return
	}
	for _, s := range sh.Sessions() {
		s.cancel(err)
	}
}

// Failure is what ended the run early, nil while it goes on.
func (sh *Shared) Failure() error {
	if p := sh.failure.Load(); p != nil {
		return *p
	}
	return nil
}

// GatewayFor is the gateway of gateways user u logs in at: its own on a
// first login, the next one on each reconnect attempt and on each retry of
// a first login that failed.
func GatewayFor(ctx context.Context, gateways []string, u uint32) string {
	return gateways[(int(u)+Attempt(ctx)+Retry(ctx))%len(gateways)]
}
