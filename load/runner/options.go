package runner

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/strictjson"
)

// ScenarioOptions is what a scenario may export as options.
type ScenarioOptions struct {
	// Thresholds in k6's syntax on the run's figures: a crossed one exits 99.
	Thresholds map[string]Expressions `json:"thresholds,omitempty"`
	// Hold keeps the users online this long instead of sending (a duration).
	Hold string `json:"hold,omitempty"`
	// StormAt asks the target for a reconnect storm this long after sending
	// began (IM_STORM_AT overrides; off: none).
	StormAt string `json:"stormAt,omitempty"`
	// VUs is how many workers share the users (IM_VUS overrides).
	VUs int `json:"vus,omitempty"`
	// ProtocolOptions are the scenario's defaults per protocol for options
	// the environment does not set ({ openim: { login: 'sdk' } }).
	ProtocolOptions map[string]map[string]any `json:"protocolOptions,omitempty"`
	// Limit is a limit search's defaults for this scenario (imbench limit,
	// make limit): its flags override each.
	Limit *LimitOptions `json:"limit,omitempty"`
}

// LimitOptions are a scenario's limit search: the objective every step
// must meet, what rises and from where, how finely, how long a step.
type LimitOptions struct {
	Objective  string  `json:"objective,omitempty"`
	Dimension  string  `json:"dimension,omitempty"` // rate or users
	Start      float64 `json:"start,omitempty"`
	Max        float64 `json:"max,omitempty"`
	Factor     float64 `json:"factor,omitempty"`
	Resolution float64 `json:"resolution,omitempty"`
	Step       string  `json:"step,omitempty"`
}

// Expressions is one metric's thresholds: strings as k6 writes them, or
// objects { threshold: '...' }.
type Expressions []string

// UnmarshalJSON takes a string, a list of strings or of { threshold }.
func (e *Expressions) UnmarshalJSON(raw []byte) error {
	var one string
	if strictjson.Decode(raw, &one) == nil {
		*e = Expressions{one}
		return nil
	}
	var items []any
	if err := strictjson.Decode(raw, &items); err != nil {
		return errors.New("a threshold is a string such as 'count==0', or a list of them")
	}
	for _, it := range items {
		switch v := it.(type) {
		case string:
			*e = append(*e, v)
		case map[string]any:
			s, ok := v["threshold"].(string)
			if !ok || len(v) != 1 {
				return fmt.Errorf("threshold object %v: want { threshold: '...' }", v)
			}
			*e = append(*e, s)
		default:
			return fmt.Errorf("threshold %v: want a string", it)
		}
	}
	return nil
}

func decodeOptions(v any) (ScenarioOptions, error) {
	var o ScenarioOptions
	if err := strictjson.Convert(v, &o); err != nil {
		return o, err
	}
	if o.Hold != "" {
		if d, err := time.ParseDuration(o.Hold); err != nil || d <= 0 {
			return o, fmt.Errorf("hold %q is not a positive duration", o.Hold)
		}
	}
	if o.VUs < 0 {
		return o, fmt.Errorf("vus %d: want a positive number", o.VUs)
	}
	for name, exprs := range o.Thresholds {
		for _, e := range exprs {
			if _, err := parseThreshold(name, e); err != nil {
				return o, err
			}
		}
	}
	return o, nil
}

// referenceEndpoints are the reference target's, per protocol, for a run
// whose environment names none (IM_ENDPOINTS unset).
var referenceEndpoints = map[string]map[string]string{
	"openim":   {"api": "http://127.0.0.1:10002", "ws": "ws://127.0.0.1:10001"},
	"wukongim": {"wukongim_api": "http://127.0.0.1:15001", "wukongim_tcp": "tcp://127.0.0.1:15100", "wukongim_ws": "ws://127.0.0.1:15200"},
	"wildfire": {"wildfire_admin": "http://127.0.0.1:18180", "wildfire_mqtt": "tcp://127.0.0.1:11883"},
}

// envOption is a protocol option, the variable that sets it and its default.
type envOption struct {
	option, env string
	def         any
	kind        string // "", "number" or "list"
}

// protocolEnv lists each protocol's options.
var protocolEnv = map[string][]envOption{
	"openim": {{"secret", "IM_SECRET", "", ""}, {"admin", "IM_ADMIN_USER", "imAdmin", ""}, {"platform", "IM_PLATFORM", 2, "number"},
		{"envelope", "IM_ENVELOPE", "gob", ""}, {"compression", "IM_COMPRESSION", "gzip", ""}, {"login", "IM_LOGIN", "light", ""},
		{"sourceAddrs", "IM_SOURCE_ADDRS", []string{}, "list"}},
	"wukongim": {{"secret", "IM_SECRET", "", ""}, {"admin", "IM_ADMIN_USER", "", ""}, {"deviceFlag", "IM_DEVICE_FLAG", 0, "number"},
		{"transport", "IM_TRANSPORT", "tcp", ""}, {"ackDelay", "IM_ACK_DELAY", "100ms", ""},
		{"sourceAddrs", "IM_SOURCE_ADDRS", []string{}, "list"}},
	"wildfire": {{"secret", "IM_SECRET", "", ""}, {"platform", "IM_WF_PLATFORM", 7, "number"}, {"keepAlive", "IM_KEEP_ALIVE", 180, "number"},
		{"sourceAddrs", "IM_SOURCE_ADDRS", []string{}, "list"}},
}

// TargetFromEnv is the target a run's environment names (IM_TARGET,
// IM_PROTOCOL, IM_ENDPOINTS and each IM_<NAME>_URL, the protocol's options
// from their variables), with the scenario's option defaults under the
// environment's.
func TargetFromEnv(env map[string]string, defaults map[string]map[string]any) (engine.Target, error) {
	proto := env["IM_PROTOCOL"]
	if proto == "" {
		proto = "openim"
	}
	vars, ok := protocolEnv[proto]
	if !ok {
		return engine.Target{}, fmt.Errorf("IM_PROTOCOL=%s: known protocols are %s", proto, strings.Join(slices.Sorted(maps.Keys(protocolEnv)), ", "))
	}
	t := engine.Target{Name: env["IM_TARGET"], System: proto, AllowRemote: env["IM_ALLOW_REMOTE"] == "1",
		Endpoints: map[string]string{}, Options: map[string]any{}}
	if t.Name == "" {
		t.Name = "reference"
	}
	if names := list(env["IM_ENDPOINTS"]); len(names) > 0 {
		for _, n := range names {
			t.Endpoints[n] = env[profile.EnvName(n)]
		}
	} else {
		for n, def := range referenceEndpoints[proto] {
			t.Endpoints[n] = def
			if v := env[profile.EnvName(n)]; v != "" {
				t.Endpoints[n] = v
			}
		}
	}
	for opt, v := range defaults[proto] {
		t.Options[opt] = v
	}
	for _, o := range vars {
		raw, set := env[o.env]
		if !set || raw == "" {
			if _, has := t.Options[o.option]; !has {
				t.Options[o.option] = o.def
			}
			continue
		}
		switch o.kind {
		case "number":
			n, err := strconv.ParseFloat(raw, 64)
			if err != nil {
				return t, fmt.Errorf("%s=%q is not a number", o.env, raw)
			}
			t.Options[o.option] = n
		case "list":
			t.Options[o.option] = list(raw)
		default:
			t.Options[o.option] = raw
		}
	}
	for opt := range defaults[proto] {
		if !slices.ContainsFunc(vars, func(o envOption) bool { return o.option == opt }) {
			return t, fmt.Errorf("protocolOptions.%s.%s: not an option imbench sets for %s", proto, opt, proto)
		}
	}
	return t, nil
}

func list(raw string) []string {
	var out []string
	for _, a := range strings.Split(raw, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// RunOptions tune a run; durations are Go duration strings.
type RunOptions struct {
	VUs            int
	ResultsDir     string
	PingInterval   string
	ReconnectDelay string
	ReconnectCap   string
	DrainQuiet     string
	DrainTimeout   string
	DrainSync      string // IM_DRAIN_SYNC: on (default) or off
	LoginRetries   int    // a failed first login is tried again this often (0: the engine's 5; -1: never)
	LoginParallel  int    // logins in flight per VU (0: the engine's 64)
	Version        string // imbench's version, recorded in summary.json
	LoginWindow    string // split runs: time allowed for each login phase
	LoginWithin    string // IM_LOGIN_WITHIN: a login phase's first attempts and retries end this long after it began
	// StopWhenLost (IM_STOP_WHEN_LOST, thresholds as JSON, as a scenario's
	// options write them) are an objective checked once a hold run's users
	// logged in: lost then, the run skips its hold (a limit search's users
	// step, decided as soon as its objective is lost).
	StopWhenLost map[string]Expressions
	SendMargin   string        // split runs: time allowed after the last scheduled send
	ServerCores  int           // the target machine's cores, for per-core rates in the tables
	StormAt      string        // after sending began, the target drops every connection at once
	StormURL     string        // where to ask for it (the reference target's POST /fault/storm)
	Progress     time.Duration // progress lines this often; 0: none
	Keep         bool          // IM_KEEP=1: the run's users, groups and chatrooms stay on the target at its end
	// StoreCheck bounds the store check after the drain (IM_STORE_CHECK, a
	// duration, default 60 s; "off": none, what is owed stays lost).
	StoreCheck time.Duration
}

// RunOptionsFromEnv reads the run's tuning from its environment (the
// variables env.js documented for k6): IM_PING_INTERVAL, IM_DRAIN_QUIET, …
func RunOptionsFromEnv(env map[string]string, so ScenarioOptions) (RunOptions, error) {
	o := RunOptions{ResultsDir: env["IM_RESULTS_DIR"], Version: env["IM_IMBENCH_VERSION"],
		PingInterval: env["IM_PING_INTERVAL"], DrainQuiet: env["IM_DRAIN_QUIET"], DrainTimeout: env["IM_DRAIN_TIMEOUT"], DrainSync: env["IM_DRAIN_SYNC"],
		LoginWindow: env["IM_LOGIN_WINDOW"], LoginWithin: env["IM_LOGIN_WITHIN"], SendMargin: env["IM_SEND_MARGIN"], ReconnectDelay: env["IM_RECONNECT_DELAY"],
		ReconnectCap: env["IM_RECONNECT_CAP"], StormURL: env["IM_STORM_URL"], StormAt: so.StormAt, VUs: so.VUs}
	if o.ResultsDir == "" {
		o.ResultsDir = "results"
	}
	if v := env["IM_STORM_AT"]; v != "" {
		o.StormAt = v
	}
	if o.StormAt == "off" {
		o.StormAt = ""
	}
	var errs []error
	whole := func(name string, dst *int) {
		raw := env[name]
		if raw == "" {
			return
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("%s must be a positive whole number, got %q", name, raw))
			return
		}
		*dst = n
	}
	if raw := env["IM_LOGIN_RETRIES"]; raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("IM_LOGIN_RETRIES must be 0 or more, got %q", raw))
		} else if n == 0 {
			o.LoginRetries = -1
		} else {
			o.LoginRetries = n
		}
	}
	switch raw := env["IM_KEEP"]; raw {
	case "", "0":
	case "1":
		o.Keep = true
	default:
		errs = append(errs, fmt.Errorf("IM_KEEP must be 1 (keep what the run created on the target) or 0, got %q", raw))
	}
	whole("IM_VUS", &o.VUs)
	whole("IM_LOGIN_PARALLEL", &o.LoginParallel)
	whole("IM_SERVER_CORES", &o.ServerCores)
	if o.VUs <= 0 {
		o.VUs = 1
	}
	for name, raw := range map[string]string{"IM_LOGIN_WINDOW": o.LoginWindow, "IM_SEND_MARGIN": o.SendMargin} {
		if d, err := time.ParseDuration(raw); raw != "" && (err != nil || d <= 0) {
			errs = append(errs, fmt.Errorf("%s %q is not a positive duration", name, raw))
		}
	}
	if raw := env["IM_STOP_WHEN_LOST"]; raw != "" {
		if err := strictjson.Decode([]byte(raw), &o.StopWhenLost); err != nil {
			errs = append(errs, fmt.Errorf("IM_STOP_WHEN_LOST is thresholds as JSON ({\"never_online\":[\"count==0\"]}): %v", err))
		}
		for name, es := range o.StopWhenLost {
			for _, e := range es {
				if _, err := parseThreshold(name, e); err != nil {
					errs = append(errs, fmt.Errorf("IM_STOP_WHEN_LOST: %w", err))
				}
			}
		}
	}
	o.StoreCheck = defaultStoreCheck
	switch raw := env["IM_STORE_CHECK"]; raw {
	case "":
	case "off", "0":
		o.StoreCheck = 0
	default:
		d, err := time.ParseDuration(raw)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("IM_STORE_CHECK must be a duration such as 60s, or off, got %q", raw))
		}
		o.StoreCheck = d
	}
	if _, err := o.engineOptions(); err != nil {
		errs = append(errs, err)
	}
	return o, every(errs)
}

// first is the first of errs in a stable order: a refusal is one line.
// every is each mistake, in order, in one line: a user fixes them all at
// once rather than one a run.
func every(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	var texts []string
	for _, e := range errs {
		texts = append(texts, e.Error())
	}
	slices.Sort(texts)
	return errors.New(strings.Join(slices.Compact(texts), "; "))
}

func (o RunOptions) engineOptions() (engine.Options, error) {
	var out engine.Options
	var errs []error
	for name, f := range map[string]struct {
		raw string
		dst *time.Duration
	}{
		"IM_PING_INTERVAL":   {o.PingInterval, &out.PingInterval},
		"IM_RECONNECT_DELAY": {o.ReconnectDelay, &out.ReconnectDelay},
		"IM_RECONNECT_CAP":   {o.ReconnectCap, &out.ReconnectCap},
		"IM_DRAIN_QUIET":     {o.DrainQuiet, &out.DrainQuiet},
		"IM_DRAIN_TIMEOUT":   {o.DrainTimeout, &out.DrainTimeout},
		"IM_LOGIN_WITHIN":    {o.LoginWithin, &out.LoginWithin},
	} {
		if f.raw == "" {
			continue
		}
		d, err := time.ParseDuration(f.raw)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("%s %q is not a positive duration", name, f.raw))
		}
		*f.dst = d
	}
	out.LoginRetries = o.LoginRetries
	out.LoginParallel = o.LoginParallel
	switch o.DrainSync {
	case "", "on":
	case "off":
		out.NoDrainSync = true
	default:
		errs = append(errs, fmt.Errorf("IM_DRAIN_SYNC must be on or off, got %q", o.DrainSync))
	}
	out.Defaults()
	return out, every(errs)
}
