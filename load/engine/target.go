package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/imbench/imbench/internal/loopback"
)

// Target says where a server is: its profile name, the protocol it speaks,
// its endpoints by name (a value may list several, comma-separated) and
// options only its protocol reads.
type Target struct {
	Name        string            `js:"name" json:"name"`
	System      string            `js:"system" json:"system"`
	Endpoints   map[string]string `js:"endpoints" json:"endpoints"`
	AllowRemote bool              `js:"allowRemote" json:"allowRemote"`
	Options     map[string]any    `js:"options" json:"options,omitempty"`
}

// Open checks the target against its protocol: the endpoints it needs, on
// loopback unless allowed elsewhere, and options the protocol accepts.
func (t *Target) Open() (Spec, Protocol, error) {
	if t.Name == "" {
		t.Name = "reference"
	}
	spec, err := Lookup(t.System)
	if err != nil {
		return spec, nil, err
	}
	var errs []error
	for _, name := range spec.Endpoints {
		raw := strings.TrimSpace(t.Endpoints[name])
		if raw == "" {
			errs = append(errs, fmt.Errorf("target %s: endpoint %q is required for %s", t.Name, name, spec.Name))
			continue
		}
		if t.AllowRemote {
			continue
		}
		for _, one := range strings.Split(raw, ",") {
			if err := loopback.Require(strings.TrimSpace(one)); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for name := range t.Endpoints {
		if !slices.Contains(spec.Endpoints, name) {
			errs = append(errs, fmt.Errorf("target %s: %s has no endpoint %q (it takes %s)", t.Name, spec.Name, name, strings.Join(spec.Endpoints, ", ")))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return spec, nil, err
	}
	proto, err := spec.Open(*t)
	return spec, proto, err
}

// Reach opens and closes a TCP connection to addr (host:port), the check a
// protocol's preflight makes of each gateway; the error is the system's
// reason alone ("connection refused").
func Reach(ctx context.Context, addr string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) {
			return op.Err
		}
		return err
	}
	return c.Close()
}
