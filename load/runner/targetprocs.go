package runner

import (
	"sync"
	"time"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/load/procgroup"
)

// targetProcs are the processes serving the run's endpoints on this
// machine: the listening sockets' owners, looked up again every
// rediscoverEvery (a restarted server has another PID). Their CPU and
// memory, pushed with the run's labels, make the report's rows of the
// target's listening parts this run's server alone, not every process of
// its name on the host.
type targetProcs struct {
	ports  []int
	groups []profile.Process

	mu     sync.Mutex
	owners []procgroup.Owner
	at     time.Time
}

const rediscoverEvery = 30 * time.Second

// newTargetProcs takes the ports of the endpoints on this machine (none
// for a remote target: it is measured on its own host).
func newTargetProcs(endpoints []string, groups []profile.Process) *targetProcs {
	ports := procgroup.Ports(endpoints)
	if len(ports) > 0 { // the server runs here: so do the parts whose ports its profile names
		ports = append(ports, profile.GroupPorts(groups)...)
	}
	return &targetProcs{groups: groups, ports: ports}
}

// current are the owners, looked up again when the last look is old.
func (tp *targetProcs) current(now time.Time) []procgroup.Owner {
	if tp == nil || len(tp.ports) == 0 {
		return nil
	}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if tp.at.IsZero() || now.Sub(tp.at) >= rediscoverEvery {
		if owners, err := procgroup.ListenOwners(tp.ports, tp.groups); err == nil {
			tp.owners = owners
		}
		tp.at = now
	}
	return tp.owners
}
