package runner

import (
	"sync"
	"time"
)

// heldSpan is when the workers of an idle-holding run held their users
// online together: from the latest start of a hold to the earliest end.
type heldSpan struct {
	mu       sync.Mutex
	from, to time.Time
}

func (h *heldSpan) add(from, to time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.from.IsZero() || from.After(h.from) {
		h.from = from
	}
	if h.to.IsZero() || to.Before(h.to) {
		h.to = to
	}
}

// seconds is how long every worker held, 0 when none did.
func (h *heldSpan) seconds() float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.from.IsZero() || !h.to.After(h.from) {
		return 0
	}
	return h.to.Sub(h.from).Seconds()
}
