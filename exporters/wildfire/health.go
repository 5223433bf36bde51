package wildfire

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	wire "github.com/imbench/imbench/wire/wildfire"
)

// The health collector: GET /admin/health, which needs no signature. What
// the server puts there (its HealthAction): cpu.cores =
// Runtime.availableProcessors(), cpu.load = the OS's one-minute load
// average (negative where the JVM cannot read it: not exported then);
// memory.max / avail / free = the JVM heap's Runtime.maxMemory() (-Xmx),
// totalMemory() (the heap committed, which the server calls avail) and
// freeMemory() (free within it), in bytes; disk.space / free / usable =
// the server's root filesystem, in bytes.

func init() { registerCollector("health", newHealthCollector) }

var (
	coresDesc = prometheus.NewDesc(namespace+"_health_cpu_cores",
		"Processors the Wildfire JVM sees (its /admin/health cpu.cores).", []string{"node"}, nil)
	loadDesc = prometheus.NewDesc(namespace+"_health_load",
		"The server machine's one-minute load average as the Wildfire JVM reads it (/admin/health cpu.load).", []string{"node"}, nil)
	memoryDesc = prometheus.NewDesc(namespace+"_health_memory_bytes",
		"The Wildfire JVM heap (/admin/health memory): kind max is -Xmx, avail the heap committed (Runtime.totalMemory), free the free part of it.",
		[]string{"node", "kind"}, nil)
	diskDesc = prometheus.NewDesc(namespace+"_health_disk_bytes",
		"The Wildfire server's root filesystem (/admin/health disk): kind space is its size, free and usable what is left (usable: to the JVM).",
		[]string{"node", "kind"}, nil)
)

type healthCollector struct{ admin *Admin }

func newHealthCollector(a *Admin) collector { return healthCollector{admin: a} }

func (healthCollector) describe(ch chan<- *prometheus.Desc) {
	ch <- coresDesc
	ch <- loadDesc
	ch <- memoryDesc
	ch <- diskDesc
}

func (c healthCollector) update(ctx context.Context, ch chan<- prometheus.Metric) error {
	nodes, err := c.admin.Health(ctx)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		gauge := func(d *prometheus.Desc, v float64, labels ...string) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append([]string{nodeLabel(n)}, labels...)...)
		}
		gauge(coresDesc, float64(n.CPU.Cores))
		if n.CPU.Load >= 0 {
			gauge(loadDesc, n.CPU.Load)
		}
		gauge(memoryDesc, float64(n.Memory.Max), "max")
		gauge(memoryDesc, float64(n.Memory.Avail), "avail")
		gauge(memoryDesc, float64(n.Memory.Free), "free")
		gauge(diskDesc, float64(n.Disk.Space), "space")
		gauge(diskDesc, float64(n.Disk.Free), "free")
		gauge(diskDesc, float64(n.Disk.Usable), "usable")
	}
	return nil
}

// nodeLabel is a health node's name ("1" on a community server).
func nodeLabel(n wire.HealthNode) string {
	if n.Node == "" {
		return "1"
	}
	return n.Node
}
