package wildfire

import (
	"context"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// The online collector: the signed POST /admin/user/online_count, one
// count per node ([{"node":1,"count":N}] on a community server). A wrong
// admin secret fails it with code 244, and wildfire_up goes to 0.

func init() { registerCollector("online", newOnlineCollector) }

var onlineDesc = prometheus.NewDesc(namespace+"_online_users",
	"Users the Wildfire server counts online (/admin/user/online_count), per node.", []string{"node"}, nil)

type onlineCollector struct{ admin *Admin }

func newOnlineCollector(a *Admin) collector { return onlineCollector{admin: a} }

func (onlineCollector) describe(ch chan<- *prometheus.Desc) { ch <- onlineDesc }

func (c onlineCollector) update(ctx context.Context, ch chan<- prometheus.Metric) error {
	nodes, err := c.admin.OnlineCount(ctx)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		ch <- prometheus.MustNewConstMetric(onlineDesc, prometheus.GaugeValue, float64(n.Count), strconv.Itoa(n.Node))
	}
	return nil
}
