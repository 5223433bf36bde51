//go:build linux

package netloop

import (
	"testing"
	"time"
)

// waitPollersIdle checks that with no connection left every loop goroutine
// has returned.
func waitPollersIdle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for _, p := range pollers {
		for {
			p.mu.Lock()
			running, n := p.running, len(p.conns)
			p.mu.Unlock()
			if !running {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a poller still runs with %d connections", n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
