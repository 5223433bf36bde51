package engine

import (
	"sync/atomic"
	"time"

	"github.com/imbench/imbench/load/verify"
)

// LoginCost is what a session's logins cost, first logins and reconnects
// alike: each login that reached online, its sync ended, is counted with
// the time from its dial to then and the requests it made.
type LoginCost struct {
	Count    atomic.Int64   // logins that reached online
	Failed   atomic.Int64   // of those, logins a request of whose sync failed
	Requests atomic.Int64   // WebSocket requests and REST calls of those logins
	Online   verify.Latency // dial to online
}

// record counts one login: began is when Connect was called, syncRequests
// the requests of the engine's sync, which a LoginCoster replaces with its
// own figures.
func (l *LoginCost) record(c Conn, began time.Time, syncRequests int64, ok bool) {
	reqs := syncRequests
	if lc, is := c.(LoginCoster); is {
		if d := lc.Dialed(); !d.IsZero() {
			began = d
		}
		reqs = lc.Requests()
	}
	l.Count.Add(1)
	if !ok {
		l.Failed.Add(1)
	}
	l.Requests.Add(reqs)
	l.Online.Record(time.Since(began))
}
