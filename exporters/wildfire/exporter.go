// Package wildfire is a Prometheus exporter for a community Wildfire IM
// server, which has no metrics endpoint of its own
// (../shared/protocols/wildfire.md §11, §14): on every scrape it asks the
// admin API for the server's health and its online count and turns the
// answers into metrics. The server is the system under test, so the
// exporter exports nothing about its own process.
//
// Collectors register themselves by name from their files' init, one
// collector a file, as node_exporter's do; the Exporter runs all of them
// on each scrape, side by side, within the scrape's timeout, and reports
// each one's success and duration:
//
//	wildfire_up                                  1 when every collector's admin calls succeeded
//	wildfire_scrape_collector_success{collector} 1 when the collector succeeded
//	wildfire_scrape_collector_duration_seconds{collector}
//	wildfire_scrape_errors_total{collector}      failed collections since the exporter started
//
// and the collectors' own (health.go, online.go).
package wildfire

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

const namespace = "wildfire"

// collector is one source of metrics. update sends what it read; an error
// means the scrape got nothing (or not everything) from it.
type collector interface {
	describe(ch chan<- *prometheus.Desc)
	update(ctx context.Context, ch chan<- prometheus.Metric) error
}

var factories = map[string]func(*Admin) collector{}

// registerCollector makes a collector part of every Exporter; each
// collector's file calls it from init.
func registerCollector(name string, factory func(*Admin) collector) {
	if _, dup := factories[name]; dup {
		panic("wildfire exporter: collector " + name + " registered twice")
	}
	factories[name] = factory
}

var (
	upDesc = prometheus.NewDesc(namespace+"_up",
		"1 when the last scrape got every answer it asked the Wildfire admin API for, else 0 (the log says why).", nil, nil)
	successDesc = prometheus.NewDesc(namespace+"_scrape_collector_success",
		"1 when the collector's admin calls succeeded in the last scrape.", []string{"collector"}, nil)
	durationDesc = prometheus.NewDesc(namespace+"_scrape_collector_duration_seconds",
		"How long the collector's admin calls took in the last scrape.", []string{"collector"}, nil)
)

// Exporter is a prometheus.Collector over every registered collector.
type Exporter struct {
	admin      *Admin
	timeout    time.Duration
	log        *slog.Logger
	names      []string
	collectors map[string]collector
	errors     *prometheus.CounterVec

	mu       sync.Mutex
	lastErr  map[string]string    // the last error logged, per collector
	loggedAt map[string]time.Time // when
}

// NewExporter returns an Exporter asking admin, each scrape's calls
// bounded by timeout, failures logged to log (a changed failure at once,
// the same one again at most once a minute, and the recovery).
func NewExporter(admin *Admin, timeout time.Duration, log *slog.Logger) *Exporter {
	e := &Exporter{
		admin: admin, timeout: timeout, log: log,
		collectors: map[string]collector{},
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "scrape_errors_total",
			Help: "Collections that failed (the admin API unreachable, slow or refusing), per collector.",
		}, []string{"collector"}),
		lastErr: map[string]string{}, loggedAt: map[string]time.Time{},
	}
	for name, f := range factories {
		e.names = append(e.names, name)
		e.collectors[name] = f(admin)
		e.errors.WithLabelValues(name) // every collector's counter from 0
	}
	sort.Strings(e.names)
	return e
}

// Describe sends every descriptor the Exporter's metrics use.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	ch <- upDesc
	ch <- successDesc
	ch <- durationDesc
	e.errors.Describe(ch)
	for _, name := range e.names {
		e.collectors[name].describe(ch)
	}
}

// Collect runs every collector against the admin API.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	errs := make([]error, len(e.names))
	var wg sync.WaitGroup
	for i, name := range e.names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			errs[i] = e.collectors[name].update(ctx, ch)
			ch <- prometheus.MustNewConstMetric(durationDesc, prometheus.GaugeValue, time.Since(start).Seconds(), name)
		}()
	}
	wg.Wait()
	up := 1.0
	for i, name := range e.names {
		ok := 1.0
		if errs[i] != nil {
			ok, up = 0, 0
			e.errors.WithLabelValues(name).Inc()
		}
		e.note(name, errs[i])
		ch <- prometheus.MustNewConstMetric(successDesc, prometheus.GaugeValue, ok, name)
	}
	ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, up)
	e.errors.Collect(ch)
}

// note logs a collector's failure when it is new or a minute old, and its
// recovery.
func (e *Exporter) note(name string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	prev := e.lastErr[name]
	if err == nil {
		if prev != "" {
			e.log.Info("wildfire admin API answers again", "collector", name, "admin", e.admin.URL)
			delete(e.lastErr, name)
		}
		return
	}
	msg := err.Error()
	if msg == prev && time.Since(e.loggedAt[name]) < time.Minute {
		return
	}
	e.lastErr[name], e.loggedAt[name] = msg, time.Now()
	e.log.Error("wildfire scrape failed: "+msg, "collector", name, "admin", e.admin.URL)
}
