// Package loopback keeps load on this machine unless the user opts out.
package loopback

import (
	"fmt"
	"net"
	"net/url"
)

// Require accepts a URL whose host is localhost or in 127.0.0.0/8.
func Require(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL", raw)
	}
	if h := u.Hostname(); h == "localhost" {
		return nil
	} else if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s is outside 127.0.0.0/8: set IM_ALLOW_REMOTE=1 to load a server on another host", raw)
}
