// Command imbench-target is imbench's reference IM server: an in-memory,
// protocol-free core (package core) behind a protocol front end that serves
// its REST API and WebSocket gateway (package openim: OpenIM's), with
// Prometheus metrics and faults that can be switched on to prove that a
// benchmark notices them.
//
// Every flag has an IMBENCH_TARGET_* environment twin (flag name upper-cased,
// dashes as underscores), e.g. IMBENCH_TARGET_SECRET, IMBENCH_TARGET_FAULT_LOSE.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/imbench/imbench/internal/lokipush"
	"github.com/imbench/imbench/targets/reference/cluster"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/openim"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "imbench-target:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("imbench-target", flag.ContinueOnError)
	var (
		role        = fs.String("role", "all", "all: one process; core: state and REST API, serving gateways; gateway: WebSocket connections, linked to a core")
		clusterAddr = fs.String("cluster", "127.0.0.1:10100", "where the core listens for gateways (core) or is found (gateway)")
		apiAddr     = fs.String("api", "127.0.0.1:10002", "REST API `address`")
		wsAddr      = fs.String("ws", "127.0.0.1:10001", "WebSocket gateway `address`")
		metricsAddr = fs.String("metrics", "127.0.0.1:12002", "Prometheus /metrics `address`")
		allowRemote = fs.Bool("allow-remote", false, "allow listening on addresses outside 127.0.0.0/8")
		secret      = fs.String("secret", "", "admin secret (required)")
		admin       = fs.String("admin", "imAdmin", "admin user id")
		maxConns    = fs.Int("max-conns", 100000, "connection limit (websocketMaxConnNum)")
		logFormat   = fs.String("log-format", "text", "log format: text or json")
		readTimeout = fs.Duration("read-timeout", openim.PongWait, "drop a connection silent this long (the gateway's read deadline)")
		lokiURL     = fs.String("loki", "", "also push the log to this Loki push URL (…/loki/api/v1/push)")
		f           core.Faults
	)
	fs.Float64Var(&f.Lose, "fault-lose", 0, "rate of messages acknowledged but never stored nor pushed")
	fs.Float64Var(&f.SkipPush, "fault-skip-push", 0, "rate of pushes skipped (message stored; clients pull it)")
	fs.Float64Var(&f.Duplicate, "fault-duplicate", 0, "rate of pushes sent twice")
	fs.Float64Var(&f.Reorder, "fault-reorder", 0, "rate of pushes held until the sender's next message overtakes them")
	fs.DurationVar(&f.ReorderHold, "fault-reorder-hold", time.Second, "longest a reordered push is held (keep it below the generator's drain quiet time)")
	fs.DurationVar(&f.Delay, "fault-delay", 0, "delay added before every push")
	fs.DurationVar(&f.DisconnectEvery, "fault-disconnect-every", 0, "drop connections this often")
	fs.IntVar(&f.DisconnectCount, "fault-disconnect-count", 1, "connections dropped each time")
	fs.Uint64Var(&f.Seed, "fault-seed", 0, "random seed of the faults (0: from the clock)")
	if err := envDefaults(fs); err != nil {
		return err
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *role != "all" && *role != "core" && *role != "gateway" {
		return fmt.Errorf("-role %q: want all, core or gateway", *role)
	}
	if *secret == "" && *role != "gateway" {
		return errors.New("a secret is required: -secret or IMBENCH_TARGET_SECRET")
	}
	addrs := []string{*metricsAddr}
	if *role != "gateway" {
		addrs = append(addrs, *apiAddr)
	}
	if *role != "core" {
		addrs = append(addrs, *wsAddr)
	}
	if *role != "all" {
		addrs = append(addrs, *clusterAddr)
	}
	for _, a := range addrs {
		if err := checkLoopback(a, *allowRemote); err != nil {
			return err
		}
	}
	var h slog.Handler = slog.NewTextHandler(os.Stderr, nil)
	if *logFormat == "json" {
		h = slog.NewJSONHandler(os.Stderr, nil)
	}
	if *lokiURL != "" {
		p := lokipush.New(*lokiURL, map[string]string{"job": "imbench-target", "target": "reference"})
		defer p.Close()
		h = p.Handler(h)
	}
	log := slog.New(h).With("service", "imbench-target", "role", *role)

	m := core.NewMetrics()
	front := openim.New(m, log)
	servers := map[string]*http.Server{
		*metricsAddr: {Handler: promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}), ReadHeaderTimeout: 10 * time.Second},
	}
	var (
		c       *core.Core
		backend core.Backend
	)
	if *role == "gateway" {
		remote, err := cluster.Dial(*clusterAddr)
		if err != nil {
			return err
		}
		backend = remote
	} else {
		var err error
		c, err = core.New(core.Config{Secret: *secret, AdminID: *admin, MaxConns: *maxConns, Faults: f, Log: log}, m)
		if err != nil {
			return err
		}
		backend = c
		servers[*apiAddr] = &http.Server{Handler: front.API(c), ReadHeaderTimeout: 10 * time.Second}
	}
	if *role != "core" {
		servers[*wsAddr] = &http.Server{Handler: front.Gateway(backend, *readTimeout), ReadHeaderTimeout: 10 * time.Second}
	}
	if *role == "core" {
		l, err := net.Listen("tcp", *clusterAddr)
		if err != nil {
			return err
		}
		defer l.Close()
		go cluster.Serve(l, c, log)
	}
	listeners := map[string]net.Listener{}
	for addr := range servers {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			for _, l := range listeners {
				l.Close()
			}
			return err
		}
		listeners[addr] = l
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, len(servers))
	for addr, srv := range servers {
		go func() { errc <- srv.Serve(listeners[addr]) }()
	}
	if c != nil {
		go c.RunDisconnects(ctx)
		log.Info("listening", "addrs", strings.Join(addrs, " "), "faults", fmt.Sprintf("%+v", c.Faults()))
	} else {
		log.Info("listening", "addrs", strings.Join(addrs, " "), "core", *clusterAddr)
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		return err
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range servers {
		srv.Shutdown(sctx)
	}
	return nil
}

// envDefaults lets IMBENCH_TARGET_<FLAG> set each flag's default.
func envDefaults(fs *flag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		key := "IMBENCH_TARGET_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(key); ok && err == nil {
			if e := f.Value.Set(v); e != nil {
				err = fmt.Errorf("%s=%q: %v", key, v, e)
			}
		}
	})
	return err
}

func checkLoopback(addr string, allow bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %v", addr, err)
	}
	ip := net.ParseIP(host)
	if allow || (ip != nil && ip.IsLoopback()) || host == "localhost" {
		return nil
	}
	return fmt.Errorf("listen address %q is outside 127.0.0.0/8; pass -allow-remote to allow it", addr)
}
