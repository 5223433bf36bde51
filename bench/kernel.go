package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// kernelCounters are the machine's network counters a starved run shows
// in: packets the kernel dropped before TCP saw them (a CPU's backlog
// full: net.core.netdev_max_backlog), connections the listen queues could
// not take, and TCP's retransmissions. Machine-wide: whatever else runs
// meanwhile counts too.
type kernelCounters struct {
	BacklogDrops    int64 `json:"backlog_drops"`
	ListenOverflows int64 `json:"listen_overflows"`
	Retransmits     int64 `json:"tcp_retransmits"`
}

func readKernelCounters() (kernelCounters, error) {
	var k kernelCounters
	softnet, err := os.ReadFile("/proc/net/softnet_stat")
	if err != nil {
		return k, err
	}
	netstat, err := os.ReadFile("/proc/net/netstat")
	if err != nil {
		return k, err
	}
	snmp, err := os.ReadFile("/proc/net/snmp")
	if err != nil {
		return k, err
	}
	if k.BacklogDrops, err = backlogDrops(string(softnet)); err != nil {
		return k, err
	}
	if k.ListenOverflows, err = procNetField(string(netstat), "TcpExt:", "ListenOverflows"); err != nil {
		return k, err
	}
	k.Retransmits, err = procNetField(string(snmp), "Tcp:", "RetransSegs")
	return k, err
}

// since is what the counters grew by from before.
func (k kernelCounters) since(before kernelCounters) kernelCounters {
	return kernelCounters{k.BacklogDrops - before.BacklogDrops, k.ListenOverflows - before.ListenOverflows, k.Retransmits - before.Retransmits}
}

// backlogDrops sums softnet_stat's second column (hexadecimal, one row a CPU).
func backlogDrops(softnet string) (int64, error) {
	var total int64
	for _, line := range strings.Split(strings.TrimSpace(softnet), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			return 0, fmt.Errorf("softnet_stat: row %q", line)
		}
		n, err := strconv.ParseInt(f[1], 16, 64)
		if err != nil {
			return 0, fmt.Errorf("softnet_stat: %v", err)
		}
		total += n
	}
	return total, nil
}

// procNetField reads one counter of /proc/net/netstat or snmp, where each
// group is a line of names followed by a line of values, both starting
// with the group's prefix.
func procNetField(text, prefix, name string) (int64, error) {
	var names []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		f := strings.Fields(line)[1:]
		if names == nil {
			names = f
			continue
		}
		for i, n := range names {
			if n == name && i < len(f) {
				return strconv.ParseInt(f[i], 10, 64)
			}
		}
		break
	}
	return 0, fmt.Errorf("%s %s not found", strings.TrimSuffix(prefix, ":"), name)
}
