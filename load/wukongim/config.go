package wukongim

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	wire "github.com/imbench/imbench/wire/wukongim"
)

// Config is how to reach one WuKongIM deployment and how to talk to it.
type Config struct {
	APIURL      string        // the HTTP API; the reference target's or a real server's 5001
	TCP         string        // tcp://host:port of the binary port; several, comma-separated
	WS          string        // ws://host:port of the WebSocket port; several, comma-separated
	Token       string        // the managerToken header of every API call ("" for none)
	DeviceFlag  int           // of every connection and token (0 APP)
	Transport   string        // tcp or ws
	Version     int           // protocol version asked for in CONNECT
	Timeout     time.Duration // request and handshake timeout
	ReadTimeout time.Duration // silence after which a connection is dead
	Parallel    int           // concurrent API calls during setup and sync
	SourceAddrs []net.IP
	// AckDelay is how long a received message's RECVACK may wait to go
	// out with later ones; 0 writes each read's RECVACKs at its end.
	AckDelay time.Duration
}

// DefaultAckDelay holds RECVACKs as WuKongIM's Android SDK paces them (one
// every 100 ms after a read brought several), far inside the server's
// retry interval (5 s on v2.1.2, wukongim.md §14).
const DefaultAckDelay = 100 * time.Millisecond

// Validate checks a config and fills defaults.
func (c *Config) Validate() error {
	var errs []error
	check := func(name, raw string, schemes ...string) string {
		var out []string
		for _, one := range strings.Split(raw, ",") {
			one = strings.TrimRight(strings.TrimSpace(one), "/")
			u, err := url.Parse(one)
			if err != nil || u.Host == "" {
				errs = append(errs, fmt.Errorf("WuKongIM %s %q is not a URL", name, one))
				continue
			}
			ok := false
			for _, s := range schemes {
				ok = ok || u.Scheme == s
			}
			if !ok {
				errs = append(errs, fmt.Errorf("WuKongIM %s %q must start with %s://", name, one, strings.Join(schemes, ":// or ")))
			}
			out = append(out, one)
		}
		return strings.Join(out, ",")
	}
	c.APIURL = check("API URL", c.APIURL, "http", "https")
	if c.Transport == "" {
		c.Transport = "tcp"
	}
	switch c.Transport {
	case "tcp":
		c.TCP = check("TCP address", c.TCP, "tcp")
	case "ws":
		c.WS = check("WebSocket URL", c.WS, "ws", "wss")
	default:
		errs = append(errs, fmt.Errorf("transport %q: want tcp or ws", c.Transport))
	}
	if f := uint8(c.DeviceFlag); c.DeviceFlag < 0 || (f != wire.DeviceApp && f != wire.DeviceWeb && f != wire.DevicePC) {
		errs = append(errs, fmt.Errorf("device flag %d: want 0 (APP), 1 (WEB) or 2 (PC)", c.DeviceFlag))
	}
	if c.Version == 0 {
		c.Version = int(wire.LatestVersion)
	}
	if c.Version < 3 || c.Version > 255 {
		errs = append(errs, fmt.Errorf("protocol version %d: imbench speaks 3 and later", c.Version))
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = 3 * time.Minute
	}
	if c.Parallel <= 0 {
		c.Parallel = 16
	}
	return errors.Join(errs...)
}

// gateways are the URLs of the transport's endpoint.
func (c *Config) gateways() []string {
	if c.Transport == "ws" {
		return strings.Split(c.WS, ",")
	}
	return strings.Split(c.TCP, ",")
}
