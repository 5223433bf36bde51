// Command imbench-target is imbench's reference IM server: an in-memory,
// protocol-free core (package core) behind protocol front ends, all served
// at once by one process: OpenIM's REST API and WebSocket gateway (package
// openim), WuKongIM's HTTP API, binary TCP and WebSocket (package wukongim)
// and Wildfire IM's signed admin API and MQTT (package wildfire), with
// Prometheus metrics and faults that can be switched on to prove that a
// benchmark notices them. Wildfire's per-user feeds live beside the core, so
// its listeners are served by the core's process (roles all and core),
// never by a gateway.
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
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/imbench/imbench/internal/lokipush"
	"github.com/imbench/imbench/targets/reference/cluster"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/openim"
	"github.com/imbench/imbench/targets/reference/wildfire"
	"github.com/imbench/imbench/targets/reference/wukongim"
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
		role          = fs.String("role", "all", "all: one process; core: state, the APIs and Wildfire's MQTT, serving gateways; gateway: the OpenIM and WuKongIM connections (WebSocket, WuKongIM's TCP), linked to a core")
		clusterAddr   = fs.String("cluster", "127.0.0.1:10100", "where the core listens for gateways (core) or is found (gateway)")
		apiAddr       = fs.String("api", "127.0.0.1:10002", "REST API `address`")
		wsAddr        = fs.String("ws", "127.0.0.1:10001", "WebSocket gateway `address`")
		metricsAddr   = fs.String("metrics", "127.0.0.1:12002", "Prometheus /metrics `address`")
		allowRemote   = fs.Bool("allow-remote", false, "allow listening on addresses outside 127.0.0.0/8")
		secret        = fs.String("secret", "", "admin secret (required)")
		admin         = fs.String("admin", "imAdmin", "admin user id")
		maxConns      = fs.Int("max-conns", 100000, "connection limit (websocketMaxConnNum)")
		logFormat     = fs.String("log-format", "text", "log format: text or json")
		readTimeout   = fs.Duration("read-timeout", openim.PongWait, "drop an OpenIM connection silent this long (the gateway's read deadline)")
		logPush       = fs.String("log-push", "", "also push the log to this Loki-protocol push `URL`, e.g. VictoriaLogs' http://127.0.0.1:9428/insert/loki/api/v1/push")
		wkAPI         = fs.String("wukongim-api", "127.0.0.1:15001", "WuKongIM HTTP API `address` (empty: off)")
		wkTCP         = fs.String("wukongim-tcp", "127.0.0.1:15100", "WuKongIM binary WKProto TCP `address` (empty: off)")
		wkWS          = fs.String("wukongim-ws", "127.0.0.1:15200", "WuKongIM WKProto-over-WebSocket `address` (empty: off)")
		wkEncrypt     = fs.Bool("wukongim-encryption", true, "encrypt WuKongIM payloads (false: the real server's disableEncryption)")
		wkOpen        = fs.Bool("wukongim-open", false, "serve WuKongIM as the real server's default configuration does: no managerToken (the API asks no token) and tokenAuthOn false (any token logs in, an empty one too; an unknown uid is registered), so its own tools run unchanged (wkcli bench)")
		wkRetry       = fs.Duration("wukongim-retry-interval", wukongim.DefaultRetryInterval, "send an unacknowledged WuKongIM RECV again this often (messageRetry.interval)")
		wkRead        = fs.Duration("wukongim-read-timeout", wukongim.DefaultReadTimeout, "drop a WuKongIM connection silent this long (connIdleTime)")
		wfAdmin       = fs.String("wildfire-admin", "127.0.0.1:18180", "Wildfire admin API `address` (empty: off; served with the core: roles all and core)")
		wfMQTT        = fs.String("wildfire-mqtt", "127.0.0.1:11883", "Wildfire MQTT `address` (empty: off; served with the core, where the per-user feeds are: roles all and core)")
		wfAdminTO     = fs.Int("wildfire-admin-timeout-every", 0, "a fault: every `n`-th Wildfire user destroy, group dismissal, group creation or member add is done and answered 249 timeout, as a real server behind answers (0: none)")
		wfAdminLate   = fs.Duration("wildfire-admin-timeout-delay", 0, "with -wildfire-admin-timeout-every: those removals are done this long after their 249 answer, as a real server's backlog does them (0: before it)")
		wfRate        = fs.Int("wildfire-rate-limit", wildfire.DefaultRateLimit, "Wildfire requests per 5 s per clientId and topic (client.request_rate_limit; the release config's is 100)")
		wfRead        = fs.Duration("wildfire-read-timeout", 0, "drop a Wildfire connection silent this long (0: round(1.5 × its keepAlive) s, as the real server)")
		inviteRefusal = fs.Bool("openim-invite-seq-refusal", false, "answer /group/invite_user_to_group as open-im-server v3.8.3 does: add the first 50 invited, then refuse with 1001 \"maxSeq is invalid\" (its join-seq step asks for seq 0, which its own check refuses)")
		notes         = fs.Bool("openim-notifications", true, "send OpenIM's notifications as open-im-server does: 1501 on group creation, 1509 on invitations, 1201 per imported friend (notification.yml isSendMsg: a stored copy in the chat conversation and a push in its n_ conversation); false: none")
		notesUnread   = fs.String("openim-notification-unread", "", "comma-separated notification.yml `keys` (groupCreated, memberInvited, friendApplicationApproved) whose stored copy counts as unread (unreadCount: true; none as released)")
		busy          = fs.Float64("fault-busy", 0, "keep this share of one core busy with work of the server's own, whatever its load (a compaction, a collector, a neighbour in its process): 0.5 spins half of every 10 ms")
		cpuProfile    = fs.String("cpuprofile", "", "write a CPU profile to this `file` until the process ends (IMBENCH_TARGET_CPUPROFILE)")
		stateLog      = fs.String("state-log", "", "keep users, tokens, groups and acknowledged messages in this append-only `file`, replayed at start (empty: memory only; roles all and core; Wildfire's feeds are not kept)")
		f             core.Faults
		wkDrops       wukongim.LoginDrops
	)
	fs.Float64Var(&f.Lose, "fault-lose", 0, "rate of messages acknowledged but never stored nor pushed")
	fs.Float64Var(&f.SkipPush, "fault-skip-push", 0, "rate of pushes skipped (message stored; clients pull it)")
	fs.Float64Var(&f.Duplicate, "fault-duplicate", 0, "rate of pushes sent twice")
	fs.Float64Var(&f.Reorder, "fault-reorder", 0, "rate of pushes held until the sender's next message overtakes them")
	fs.DurationVar(&f.ReorderHold, "fault-reorder-hold", time.Second, "longest a reordered push is held (keep it below the generator's drain quiet time)")
	fs.DurationVar(&f.ReorderLate, "fault-reorder-late", 0, "write a reordered push this long after the message that overtook it (0: right after; above the generator's gap grace, 500 ms, the client pulls it first and the push comes late)")
	fs.DurationVar(&f.Delay, "fault-delay", 0, "delay added before every push")
	fs.Float64Var(&f.AckLate, "fault-ack-late", 0, "rate of messages stored and pushed whose sender is answered -fault-ack-late-by late (past the client's timeout: a send that looks failed but was delivered)")
	fs.DurationVar(&f.AckLateBy, "fault-ack-late-by", 0, "how late -fault-ack-late answers (only that answer waits; the connection's other requests are served)")
	fs.IntVar(&f.BatchDrop, "fault-batch-drop", 0, "acknowledge each message at once and store a conversation's messages in batches (every -fault-batch-window): a batch of more than this many is dropped whole, unstored and unpushed, as open-im-server v3.8's msgtransfer drops one of more than 100 (0: off)")
	fs.DurationVar(&f.BatchWindow, "fault-batch-window", 100*time.Millisecond, "the batch fault's window (msgtransfer's 100 ms)")
	fs.Float64Var(&f.Capacity, "fault-capacity", 0, "serve at most this many messages a second on one core, queueing the rest: each is answered at once, then waits its turn for a slot of 1/capacity s of that core, storing and pushing it included (0: no cap; what a limit search finds)")
	fs.IntVar(&f.StallPulls, "fault-stall-pulls", 0, "leave the first this many pulls that find messages unanswered (an overloaded server's history reads; the store check tries a read again)")
	fs.DurationVar(&f.DisconnectEvery, "fault-disconnect-every", 0, "drop connections this often")
	fs.IntVar(&f.DisconnectCount, "fault-disconnect-count", 1, "connections dropped each time")
	fs.Uint64Var(&f.Seed, "fault-seed", 0, "random seed of the faults (0: from the clock)")
	fs.Float64Var(&wkDrops.Close, "fault-wukongim-login-close", 0, "rate of WuKongIM logins in a burst whose connection is closed after the CONNECT, before any CONNACK (a real server's \"writeFrame: conn not exist\")")
	fs.DurationVar(&wkDrops.CloseAfter, "fault-wukongim-login-close-after", 0, "how long after its CONNECT a dropped WuKongIM login's connection is closed (0: at once; a real server's is about 3 s)")
	fs.Float64Var(&wkDrops.Silent, "fault-wukongim-login-silent", 0, "rate of WuKongIM logins in a burst whose CONNACK is never written (the connection stays open, silent)")
	fs.IntVar(&wkDrops.Burst, "fault-wukongim-login-burst", wukongim.DefaultLoginBurst, "a WuKongIM login is in a burst when at least this many CONNECTs came in the second before it (0: every login is)")
	if err := envDefaults(fs); err != nil {
		return err
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *busy < 0 || *busy > 1 {
		fmt.Fprintln(os.Stderr, "imbench-target: -fault-busy is a share of one core, 0..1")
		os.Exit(2)
	}
	go spin(*busy)
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	if *role != "all" && *role != "core" && *role != "gateway" {
		return fmt.Errorf("-role %q: want all, core or gateway", *role)
	}
	if *secret == "" && *role != "gateway" {
		return errors.New("a secret is required: -secret or IMBENCH_TARGET_SECRET")
	}
	if *wkRetry <= 0 || *wkRead <= 0 {
		return errors.New("-wukongim-retry-interval and -wukongim-read-timeout must be positive")
	}
	unread, err := openim.ParseUnread(*notesUnread)
	if err != nil {
		return fmt.Errorf("-openim-notification-unread: %v", err)
	}
	if *wfRate <= 0 || *wfRead < 0 || *wfAdminTO < 0 || *wfAdminLate < 0 {
		return errors.New("-wildfire-rate-limit must be positive, -wildfire-read-timeout, -wildfire-admin-timeout-every and -wildfire-admin-timeout-delay not negative")
	}
	var addrs []string
	seen := map[string]string{}
	listen := func(name, a string) error {
		if a == "" && (strings.HasPrefix(name, "wukongim-") || strings.HasPrefix(name, "wildfire-")) {
			return nil // that listener is off
		}
		if other, dup := seen[a]; dup {
			return fmt.Errorf("-%s and -%s both listen on %s", other, name, a)
		}
		seen[a] = name
		addrs = append(addrs, a)
		return checkLoopback(a, *allowRemote)
	}
	checks := []error{listen("metrics", *metricsAddr)}
	if *role != "gateway" {
		checks = append(checks, listen("api", *apiAddr), listen("wukongim-api", *wkAPI),
			listen("wildfire-admin", *wfAdmin), listen("wildfire-mqtt", *wfMQTT))
	}
	if *role != "core" {
		checks = append(checks, listen("ws", *wsAddr), listen("wukongim-tcp", *wkTCP), listen("wukongim-ws", *wkWS))
	}
	if *role != "all" {
		checks = append(checks, listen("cluster", *clusterAddr))
	}
	if err := errors.Join(checks...); err != nil {
		return err
	}
	var h slog.Handler = slog.NewTextHandler(os.Stderr, nil)
	if *logFormat == "json" {
		h = slog.NewJSONHandler(os.Stderr, nil)
	}
	if *logPush != "" {
		p := lokipush.New(*logPush, map[string]string{"job": "imbench-target", "target": "reference"})
		defer p.Close()
		h = p.Handler(h)
	}
	log := slog.New(h).With("service", "imbench-target", "role", *role)

	m := core.NewMetrics()
	front := openim.New(m, log)
	front.Notifications, front.UnreadNotifications, front.InviteSeqRefusal = *notes, unread, *inviteRefusal
	wk := wukongim.New(m, log)
	wk.Encryption, wk.RetryInterval, wk.ReadTimeout, wk.Open = *wkEncrypt, *wkRetry, *wkRead, *wkOpen
	wkDrops.Seed = f.Seed
	if err := wk.SetLoginDrops(wkDrops); err != nil {
		return err
	}
	if *wkTCP != "" {
		wk.Route.TCPAddr = *wkTCP
	}
	if *wkWS != "" {
		wk.Route.WSAddr = "ws://" + *wkWS
	}
	control := http.NewServeMux() // beside /metrics: what a test or scenario asks of the target
	control.Handle("/", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	servers := map[string]*http.Server{
		*metricsAddr: {Handler: control, ReadHeaderTimeout: 10 * time.Second},
	}
	var (
		c       *core.Core
		backend core.Backend
		wf      *wildfire.FrontEnd
	)
	if *role == "gateway" {
		remote, err := cluster.Dial(*clusterAddr, log)
		if err != nil {
			return err
		}
		backend = remote
	} else {
		var err error
		c, err = core.New(core.Config{Secret: *secret, AdminID: *admin, MaxConns: *maxConns, Faults: f, Log: log, StateLog: *stateLog}, m)
		if err != nil {
			return err
		}
		defer c.Close()
		if *stateLog != "" && (*wfAdmin != "" || *wfMQTT != "") {
			log.Info("state log: Wildfire's per-user feeds are not kept; they start empty after a restart")
		}
		backend = c
		if checkLoopback(*metricsAddr, false) == nil {
			// Anyone who reaches it can drop every connection: loopback only.
			control.Handle("POST /fault/storm", stormHandler(c, log))
		}
		servers[*apiAddr] = apiServer(front.API(c))
		if *wkAPI != "" {
			servers[*wkAPI] = apiServer(wk.API(c))
		}
		wf = wildfire.New(c, m, log)
		wf.RateLimit, wf.ReadTimeout, wf.AdminTimeoutEvery, wf.AdminTimeoutDelay = *wfRate, *wfRead, *wfAdminTO, *wfAdminLate
		if *wfAdmin != "" {
			servers[*wfAdmin] = apiServer(wf.API())
		}
	}
	if *role != "core" {
		servers[*wsAddr] = &http.Server{Handler: front.Gateway(backend, *readTimeout), ReadHeaderTimeout: 10 * time.Second}
		if *wkWS != "" {
			servers[*wkWS] = &http.Server{Handler: wk.Gateway(backend, 0), ReadHeaderTimeout: 10 * time.Second}
		}
	}
	if *role == "core" {
		l, err := listenTCP(*clusterAddr)
		if err != nil {
			return err
		}
		defer l.Close()
		go cluster.Serve(l, c, log)
	}
	tcpAddr := "" // WuKongIM's binary TCP, which the front end serves itself
	if *role != "core" {
		tcpAddr = *wkTCP
	}
	mqttAddr := "" // Wildfire's MQTT, likewise, beside the core
	if wf != nil {
		mqttAddr = *wfMQTT
	}
	listeners := map[string]net.Listener{}
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for _, addr := range append(slices.Collect(maps.Keys(servers)), tcpAddr, mqttAddr) {
		if addr == "" {
			continue
		}
		l, err := listenTCP(addr)
		if err != nil {
			return err
		}
		listeners[addr] = l
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, len(listeners))
	for addr, srv := range servers {
		go func() { errc <- srv.Serve(listeners[addr]) }()
	}
	if tcpAddr != "" {
		go func() { errc <- wk.ServeTCP(listeners[tcpAddr], backend, 0) }()
	}
	if mqttAddr != "" {
		go func() { errc <- wf.ServeMQTT(listeners[mqttAddr]) }()
	}
	if c != nil {
		go c.RunDisconnects(ctx)
		log.Info("listening", "addrs", strings.Join(addrs, " "), "faults", fmt.Sprintf("%+v", c.Faults()))
	} else {
		log.Info("listening", "addrs", strings.Join(addrs, " "), "core", *clusterAddr)
	}
	if wkDrops.Active() {
		log.Info("WuKongIM login drops", "fault", fmt.Sprintf("%+v", wkDrops))
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

// apiServer serves a front end's REST API as the real servers do
// (openim-api's plain http.Server, WuKongIM's gin Run): with no time limit
// on a request's headers. Go counts that limit for a connection's first
// request from the accept, so a connection a client's transport dialed
// and left unused in its idle pool (OpenIM's SDK does, in bursts) would be
// closed under it, and a POST sent on it as it closes fails with EOF, never
// retried.
func apiServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h}
}
