package wildfire

import (
	"fmt"
	"net"
)

// CheckListen refuses a listen address beyond loopback unless allowRemote:
// the exporter's answers describe the server under test to whoever asks.
// An empty host (":12080") listens on every address, so it is remote too.
func CheckListen(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %v", addr, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("listen address %q: bad port", addr)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("listen address %q is not loopback: add -allow-remote to serve beyond this machine", addr)
}
