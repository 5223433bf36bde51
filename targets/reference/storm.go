package main

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/imbench/imbench/targets/reference/core"
)

// stormHandler drops every connection at once when asked (POST
// /fault/storm on the metrics address): a reconnect storm on demand. It
// answers {"dropped": n}; the drops count as the disconnect fault's.
func stormHandler(c *core.Core, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := c.DropAll()
		log.Warn("fault: reconnect storm", "dropped", n)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]int{"dropped": n})
	})
}
