// Package runid makes run ids: the start time, then random hex so that runs
// started in the same second differ (20261121-184119-e42ee3).
package runid

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// New returns a fresh run id.
func New() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}
