package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/imbench/imbench/bench"
	"github.com/imbench/imbench/internal/badinput"
)

// `imbench bench`: measures the generator (bench).
func cmdBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var (
		users  = fs.Int("users", 0, "users for the single-process runs (0: the file limit allows)")
		total  = fs.Int("total", 250000, "users of the distributed run")
		procs  = fs.Int("procs", 14, "generator processes (execution segments) of the distributed run")
		hold   = fs.Duration("hold", 60*time.Second, "how long users are held online (above the 30 s read deadline)")
		only   = fs.String("only", "density,baseline,delivery,distributed,flat", "which measurements (stock: the old name of baseline)")
		out    = fs.String("out", "results/bench", "where the JSON goes")
		rates  = fs.String("rates", "50,400,1100,2000", "messages per second of the delivery runs")
		rounds = fs.Int("rounds", 3, "delivery rounds (generator, then floor) at each rate, odd: each side's median is kept")
		flat   = fs.Duration("flat", 10*time.Minute, "how long the flat run sends (IM_DURATION)")
		fRate  = fs.Float64("flat-rate", 400, "messages per second of the flat run's open classes (IM_RATE)")
		fScen  = fs.String("flat-scenario", "openim/mix", "the flat run's workload: openim/mix or wukongim/stability")
		protos = fs.String("protocols", "wukongim,wildfire", "other protocols whose density and delivery are measured too (empty: none)")
		openim = fs.Bool("openim", true, "measure OpenIM's density, baseline and delivery (false: only -protocols'; flat and distributed are OpenIM's either way)")
	)
	if err := fs.Parse(args); err != nil {
		return badinput.Wrap(err)
	}
	var rateList []float64
	for _, r := range strings.Split(*rates, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(r), 64)
		if err != nil || v <= 0 || v > 5000 {
			return badinput.Errorf("rate %q is not a message rate in (0, 5000] per second", r)
		}
		rateList = append(rateList, v)
	}
	if *rounds < 1 || *rounds > 15 || *rounds%2 == 0 {
		return badinput.Errorf("rounds %d: want an odd number in 1..15 (each side's median is kept)", *rounds)
	}
	if *hold < 35*time.Second {
		return badinput.Errorf("hold %s is too short to prove heartbeats beat the 30 s read deadline", *hold)
	}
	if *flat < 2*time.Minute || *flat > 30*24*time.Hour {
		return badinput.Errorf("flat %s must be within 2m..720h: the fit leaves out a warm-up of at least 60 s", *flat)
	}
	if *fRate <= 0 || *fRate > 5000 {
		return badinput.Errorf("flat-rate %g is not a message rate in (0, 5000] per second", *fRate)
	}
	if !bench.IsFlatScenario(*fScen) {
		return badinput.Errorf("flat-scenario %q: want openim/mix or wukongim/stability", *fScen)
	}
	want := map[string]bool{}
	for _, w := range strings.Split(*only, ",") {
		switch w = strings.TrimSpace(w); w {
		case "stock": // its name while the baseline was stock k6
			want["baseline"] = true
		case "density", "baseline", "delivery", "distributed", "flat":
			want[w] = true
		case "":
		default:
			return badinput.Errorf("unknown measurement %q (density, baseline, delivery, distributed, flat)", w)
		}
	}
	return bench.Run(bench.Options{Users: *users, Total: *total, Procs: *procs, Hold: *hold, Want: want, Out: *out,
		Rates: rateList, Rounds: *rounds, Flat: *flat, FlatRate: *fRate, FlatScenario: *fScen, Protocols: strings.Split(*protos, ","), SkipOpenIM: !*openim})
}

// `imbench bench-baseline-hold`: the baseline the bench compares the
// generator with, as a process of its own (bench). Not in the
// usage: the bench starts it.
func cmdBenchBaselineHold(args []string) error {
	fs := flag.NewFlagSet("bench-baseline-hold", flag.ContinueOnError)
	var (
		api      = fs.String("api", "", "the target's OpenIM REST API, http://host:port (required)")
		wsURLs   = fs.String("ws", "", "its msggateway WebSocket URLs, comma-separated (required)")
		users    = fs.Int("users", 1000, "users held online")
		hold     = fs.Duration("hold", 60*time.Second, "how long they are held once all are online")
		ping     = fs.Duration("ping", 24*time.Second, "WebSocket ping period (msgtest's: 8/10 of the 30 s read deadline)")
		deadline = fs.Duration("read-deadline", 30*time.Second, "the client's own read deadline, pushed on by every frame and pong")
		prefix   = fs.String("prefix", "baseline_u", "user ID prefix")
		parallel = fs.Int("parallel", 256, "dials in flight at once")
		out      = fs.String("out", "", "write the report here (default: standard output)")
	)
	if err := fs.Parse(args); err != nil {
		return badinput.Wrap(err)
	}
	secret := os.Getenv("IM_SECRET")
	switch {
	case *api == "" || *wsURLs == "":
		return badinput.Errorf("-api and -ws are required")
	case secret == "":
		return badinput.Errorf("the target's secret goes in IM_SECRET")
	case *users < 1:
		return badinput.Errorf("-users %d: want at least 1", *users)
	case *ping <= 0 || *ping >= *deadline:
		return badinput.Errorf("-ping %s must be positive and below the read deadline %s", *ping, *deadline)
	case *parallel < 1:
		return badinput.Errorf("-parallel %d: want at least 1", *parallel)
	}
	return bench.HoldBaseline(bench.BaselineOptions{API: *api, WS: *wsURLs, Secret: secret, Admin: os.Getenv("IM_ADMIN_USER"),
		Users: *users, Hold: *hold, Ping: *ping, ReadDeadline: *deadline, Prefix: *prefix, Parallel: *parallel, Out: *out})
}

// `imbench bench-page`: docs/benchmark.md from a `make bench` JSON.
func cmdBenchPage(args []string) error {
	fs := flag.NewFlagSet("bench-page", flag.ContinueOnError)
	in := fs.String("in", "", "a make bench JSON (default: the newest under results/bench)")
	dir := fs.String("dir", "docs", "where benchmark.md and its benchmark.json go")
	if err := fs.Parse(args); err != nil {
		return badinput.Wrap(err)
	}
	if err := bench.Page(*in, *dir); err != nil {
		return err
	}
	fmt.Println("imbench bench-page: wrote", filepath.Join(*dir, "benchmark.md"))
	return nil
}
