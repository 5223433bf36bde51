package runner

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/load/engine"
)

// Preflight proves the target answers and accepts the secret, before any
// load: the target's protocol driver checks it with the run's environment
// (its IM_TRANSPORT, …: the gateways the run will use). Its logins to the
// gateways are checked where checkLogins: once for a split run, by its
// setup; its segments starting together would log the same manager in at
// once, and a real WuKongIM drops one of those (a pod refused in 3 runs
// of 3). Any failure is bad input: refused before any load, exit 2.
func Preflight(env map[string]string, name, protocol string, allowRemote bool, endpoints profile.Endpoints, checkLogins bool) error {
	t, err := TargetFromEnv(env, nil)
	if err != nil {
		return badinput.Errorf("%v", err)
	}
	t.Name, t.System, t.AllowRemote, t.Endpoints = name, protocol, allowRemote, endpoints
	_, proto, err := t.Open()
	if err != nil {
		return badinput.Errorf("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	err = proto.Preflight(ctx)
	cancel()
	if gc, ok := proto.(engine.GatewayChecker); ok && err == nil && checkLogins {
		// A minute: a gateway's logins are retried where the server closed
		// them unanswered, a real WuKongIM about 3 s after each (§17).
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err = gc.CheckGateways(ctx)
		cancel()
	}
	if err != nil {
		hint := ""
		var op *net.OpError
		if name == "reference" && errors.As(err, &op) {
			hint = " (start it with make up)"
		}
		return badinput.Errorf("target %s: %v%s", name, err, hint)
	}
	return nil
}
