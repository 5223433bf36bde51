package wildfire

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// probeBurst is how many requests the rate-limit probe sends at once: past
// the release's bucket of 100 per client and topic (§9, §14).
const probeBurst = 110

// RateLimitError is a server whose per-client request limit would reject
// the plan's sending with code 250.
type RateLimitError struct {
	Accepted, Burst int
	Need            float64 // the most messages one user may send in a window (RateWindow)
}

func (e *RateLimitError) Error() string {
	need := "as fast as acknowledged for as long as the run sends"
	if !math.IsInf(e.Need, 1) {
		need = fmt.Sprintf("up to %.0f in 5 s", e.Need)
	}
	return fmt.Sprintf("the server's client.request_rate_limit accepted %d of %d requests one client sent at once (code 250 for the rest), and this plan has a user send %s: raise client.request_rate_limit in wildfirechat.conf (the seed's method sets 1000000; runbooks/wildfire.md)",
		e.Accepted, e.Burst, need)
}

// checkRateLimit logs the plan's first user in, sends a burst of user-info
// requests (UPUI: rate-limited like MS, and changes nothing) and counts the
// code-250 answers. A limit the plan's busiest sender would reach is an
// error before any load; one it stays under is reported.
func (d *Driver) checkRateLimit(ctx context.Context, progress func(string)) error {
	c, err := d.dial(ctx, 0, quiet{})
	if err != nil {
		return fmt.Errorf("rate-limit probe: %w", err)
	}
	defer func() {
		c.Close(func(bool) {})
		d.logins[0].Store(false) // the probe is not the user's login
	}()
	body := protowire.AppendTag(nil, 1, protowire.BytesType)
	body = protowire.AppendBytes(body, protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), c.uid))
	var (
		mu       sync.Mutex
		answered int
		limited  int
		failed   error
		all      = make(chan struct{})
	)
	for range probeBurst {
		err := c.request(wire.TopicGetUserInfo, body, func(a wire.Puback, err error) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				failed = err
			case a.Code == wire.CodeOverFrequency:
				limited++
			}
			if answered++; answered == probeBurst {
				close(all)
			}
		})
		if err != nil {
			return fmt.Errorf("rate-limit probe: %w", err)
		}
	}
	select {
	case <-all:
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(2 * d.cfg.Timeout):
		return fmt.Errorf("rate-limit probe: %d of %d answers within %s", answered, probeBurst, 2*d.cfg.Timeout)
	}
	if failed != nil {
		return fmt.Errorf("rate-limit probe: %w", failed)
	}
	need := d.plan.BusiestSenderIn(rateWindow)
	if limited == 0 {
		progress(fmt.Sprintf("the server's client.request_rate_limit let all %d requests one client sent at once through; this plan's busiest user sends %s in 5 s", probeBurst, needText(need)))
		return nil
	}
	e := &RateLimitError{Accepted: probeBurst - limited, Burst: probeBurst, Need: need}
	if e.Need >= 0.9*float64(e.Accepted) {
		return e
	}
	progress(fmt.Sprintf("the server's client.request_rate_limit accepts about %d requests per client in 5 s; this plan's busiest user sends %s, below it", e.Accepted, needText(need)))
	return nil
}

// rateWindow is client.request_rate_limit's window.
const rateWindow = 5 * time.Second

func needText(n float64) string {
	if math.IsInf(n, 1) {
		return "as fast as acknowledged"
	}
	return fmt.Sprintf("up to %.0f", n)
}

// quiet is the probe connection's handler: it expects no messages.
type quiet struct{}

func (quiet) Arrive(verify.Arrival)           {}
func (quiet) Closed(engine.Conn, error, bool) {}
