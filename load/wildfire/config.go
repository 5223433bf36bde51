package wildfire

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	wire "github.com/imbench/imbench/wire/wildfire"
)

// DefaultKeepAlive is the web client's ping period in seconds
// (vue-chat's KEEP_ALIVE_INTERNAL), sent as CONNECT's keepAlive: an MQTT
// client sends a PINGREQ when it has sent nothing else for that long.
const DefaultKeepAlive = 180

// Config is how to reach one Wildfire deployment and how to talk to it.
type Config struct {
	AdminURL    string        // the admin API (http.admin.port, 18080)
	MQTT        string        // tcp://host:port of the long-connection port; several, comma-separated
	Secret      string        // http.admin.secret_key
	Platform    int           // get_token's platform (7 Linux)
	KeepAlive   int           // CONNECT's keepAlive, seconds: the server drops a connection silent 1.5 times this
	Timeout     time.Duration // request and handshake timeout
	ReadTimeout time.Duration // silence after which a connection is dead
	Parallel    int           // concurrent admin calls during setup
	SourceAddrs []net.IP
}

// Validate checks a config and fills defaults.
func (c *Config) Validate() error {
	var errs []error
	u, err := url.Parse(strings.TrimRight(c.AdminURL, "/"))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		errs = append(errs, fmt.Errorf("Wildfire admin URL %q must be http(s)://host:port", c.AdminURL))
	} else {
		c.AdminURL = u.String()
	}
	var gws []string
	for _, one := range strings.Split(c.MQTT, ",") {
		one = strings.TrimSpace(one)
		g, err := url.Parse(one)
		if err != nil || g.Scheme != "tcp" || g.Host == "" || g.Port() == "" {
			errs = append(errs, fmt.Errorf("Wildfire MQTT address %q must be tcp://host:port", one))
			continue
		}
		gws = append(gws, one)
	}
	c.MQTT = strings.Join(gws, ",")
	if c.Platform == 0 {
		c.Platform = int(wire.PlatformLinux)
	}
	if c.Platform < 1 || c.Platform > 12 {
		errs = append(errs, fmt.Errorf("platform %d: want 1–12 (7 is Linux)", c.Platform))
	}
	if c.KeepAlive == 0 {
		c.KeepAlive = DefaultKeepAlive
	}
	if c.KeepAlive < 0 || c.KeepAlive > 65535 {
		errs = append(errs, fmt.Errorf("keepAlive %d s: want 1–65535", c.KeepAlive))
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

// gateways lists the MQTT endpoints' host:port.
func (c *Config) gateways() []string {
	var out []string
	for _, one := range strings.Split(c.MQTT, ",") {
		if g, err := url.Parse(one); err == nil {
			out = append(out, g.Host)
		}
	}
	return out
}
