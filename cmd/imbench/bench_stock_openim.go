package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/imbench/imbench/k6/im/openim"
)

// The stock-k6 baseline's users are set up here, in Go, because stock k6 has
// no k6/x/im to do it: registerForStock speaks OpenIM's REST API (which the
// reference target serves) through k6/im/openim's API client. It is the only
// Go code of the bench that speaks OpenIM; the rest runs scenarios and reads
// the target's /metrics. A baseline against another protocol replaces this
// file and k6/bench/stock_hold.js.

// registerForStock registers users stock_u0… and writes their tokens to a
// temporary JSON file, [{"id", "token"}, …], for stock_hold.js (IM_TOKENS).
func registerForStock(bt *benchTarget, users int) (string, error) {
	api := &openim.API{Base: "http://" + bt.api, Secret: bt.secret, AdminID: "imAdmin", HTTP: &http.Client{Timeout: 30 * time.Second}}
	ctx := context.Background()
	admin, err := api.AdminToken(ctx)
	if err != nil {
		return "", err
	}
	type entry struct {
		ID    string `json:"id"`
		Token string `json:"token"`
	}
	list := make([]entry, users)
	ids := make([]string, users)
	for i := range list {
		ids[i] = fmt.Sprintf("stock_u%d", i)
		list[i].ID = ids[i]
	}
	if _, err := api.RegisterUsers(ctx, admin, ids); err != nil {
		return "", err
	}
	var g errgroup.Group
	g.SetLimit(16)
	var mu sync.Mutex
	for i := range list {
		g.Go(func() error {
			tok, err := api.UserToken(ctx, admin, list[i].ID, 2)
			mu.Lock()
			list[i].Token = tok
			mu.Unlock()
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return "", err
	}
	raw, _ := json.Marshal(list)
	f, err := os.CreateTemp("", "imbench-stock-*.json")
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.Write(raw)
	return f.Name(), err
}
