package main

import (
	"flag"
	"os"

	"github.com/imbench/imbench/bench"
	"github.com/imbench/imbench/internal/badinput"
)

// `imbench bench-floor`: the bare client the bench sets the generator's
// cost per delivery against, as a process of its own (bench
// floor.go). Not in the usage: the bench starts it. IMBENCH_CPUPROFILE
// profiles it as it profiles a run.
func cmdBenchFloor(args []string) error {
	fs := flag.NewFlagSet("bench-floor", flag.ContinueOnError)
	var (
		proto    = fs.String("protocol", "", "openim, wukongim or wildfire (required)")
		api      = fs.String("api", "", "the protocol's REST or admin API, http://host:port (required)")
		gateway  = fs.String("gateway", "", "its socket endpoint: ws://host:port for openim, tcp://host:port for wukongim and wildfire (required)")
		users    = fs.Int("users", 200, "users, all in one group and online")
		rate     = fs.Float64("rate", 400, "messages per second, all from the first user")
		messages = fs.Int("messages", 18000, "messages sent in all")
		body     = fs.Int("body", 128, "text bytes of each message")
		prefix   = fs.String("prefix", "floor_", "user and group ID prefix")
		out      = fs.String("out", "", "write the report here (default: standard output)")
	)
	if err := fs.Parse(args); err != nil {
		return badinput.Wrap(err)
	}
	secret := os.Getenv("IM_SECRET")
	switch {
	case *proto == "" || *api == "" || *gateway == "":
		return badinput.Errorf("-protocol, -api and -gateway are required")
	case secret == "":
		return badinput.Errorf("the target's secret goes in IM_SECRET")
	case *users < 2:
		return badinput.Errorf("-users %d: want a sender and at least one receiver", *users)
	case *rate <= 0 || *rate > 5000:
		return badinput.Errorf("-rate %g is not a message rate in (0, 5000] per second", *rate)
	case *messages < 1:
		return badinput.Errorf("-messages %d: want at least 1", *messages)
	case *body < 1 || *body > 16000:
		return badinput.Errorf("-body %d: want 1..16000 bytes (every protocol's frame, encrypted, holds that)", *body)
	}
	defer cpuProfile(os.Getenv("IMBENCH_CPUPROFILE"))()
	return bench.RunFloor(bench.FloorOptions{Protocol: *proto, API: *api, Gateway: *gateway, Secret: secret,
		Admin: os.Getenv("IM_ADMIN_USER"), Users: *users, Rate: *rate, Messages: *messages, Body: *body, Prefix: *prefix, Out: *out})
}
