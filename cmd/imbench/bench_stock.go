package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/load/engine"
)

// stockLogins sets up the stock-k6 baseline's users (stock k6 has no
// k6/x/im to do it) through the reference target's protocol, and writes the
// URL that logs each in to a temporary JSON file for stock_hold.js
// (IM_LOGINS).
func stockLogins(bt *benchTarget, users int) (string, error) {
	profiles, err := profile.Load("targets")
	if err != nil {
		return "", err
	}
	t := engine.Target{Name: "reference", System: profiles["reference"].System,
		Endpoints: map[string]string{"api": "http://" + bt.api, "ws": strings.Join(bt.ws, ",")},
		Options:   map[string]any{"secret": bt.secret}}
	_, proto, err := t.Open()
	if err != nil {
		return "", err
	}
	sl, ok := proto.(engine.StockLogins)
	if !ok {
		return "", fmt.Errorf("protocol %s offers stock k6 no logins", t.System)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	urls, err := sl.StockLogins(ctx, "stock_u", users)
	if err != nil {
		return "", err
	}
	raw, _ := json.Marshal(urls)
	f, err := os.CreateTemp("", "imbench-stock-*.json")
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.Write(raw)
	return f.Name(), err
}
