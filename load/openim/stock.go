package openim

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"
)

// StockLogins implements engine.StockLogins: users prefix0… registered
// over REST, one token each, and the gateway URL that logs each in.
func (p *protocol) StockLogins(ctx context.Context, prefix string, n int) ([]string, error) {
	api := newAPI(p.cfg)
	admin, err := adminToken(ctx, api, p.cfg)
	if err != nil {
		return nil, err
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	if _, err := api.RegisterUsers(ctx, admin, ids); err != nil {
		return nil, err
	}
	gateways := strings.Split(p.cfg.WSURL, ",")
	urls := make([]string, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.cfg.Parallel)
	for i, id := range ids {
		g.Go(func() error {
			tok, err := api.UserToken(gctx, admin, id, p.cfg.Platform)
			urls[i] = loginURL(p.cfg, gateways[i%len(gateways)], id, tok)
			return err
		})
	}
	return urls, g.Wait()
}
