// Package runid makes run ids: the start time, then random hex so that runs
// started in the same second differ (20261121_184119_e42ee3). A run names
// its users and groups after its id, so an id takes only what every
// system accepts in one: letters, digits and '_'.
package runid

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// MaxLength leaves room in a user, group or chatroom id (62 characters at
// most, load/plan) for the longest suffix a plan adds.
const MaxLength = 32

// New returns a fresh run id.
func New() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102_150405") + "_" + hex.EncodeToString(b)
}

// Check refuses a run id a user gave that some system would refuse in the
// ids made from it.
func Check(id string) error {
	if id == "" || len(id) > MaxLength {
		return fmt.Errorf("run id %q must be 1 to %d characters", id, MaxLength)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return fmt.Errorf("run id %q: only letters, digits and '_' (the run's users are <run id>_u<n>, and OpenIM refuses any other character in a user id)", id)
		}
	}
	return nil
}
