package main

import (
	"testing"

	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/load/procgroup"
)

// The target machine's cores: the setting, the profile's, or this
// machine's (all its CPUs, whatever this process is pinned to) where the
// target runs here.
func TestServerCores(t *testing.T) {
	here := procgroup.MachineCores()
	local := profile.Endpoints{"api": "http://127.0.0.1:20002", "ws": "ws://localhost:20001"}
	remote := profile.Endpoints{"api": "http://10.0.0.5:20002", "ws": "ws://127.0.0.1:20001"}
	for _, c := range []struct {
		name      string
		p         profile.Profile
		endpoints profile.Endpoints
		env       string
		want      int
	}{
		{"reference", profile.Profile{Name: "reference"}, local, "", here},
		{"a real server on loopback", profile.Profile{Name: "openim"}, local, "", here},
		{"an endpoint on another host", profile.Profile{Name: "openim"}, remote, "", 0},
		{"no endpoints", profile.Profile{Name: "openim"}, nil, "", 0},
		{"the profile's", profile.Profile{Name: "openim", Cores: 16}, remote, "", 16},
		{"IM_SERVER_CORES", profile.Profile{Name: "openim", Cores: 16}, local, "3", 3},
	} {
		t.Setenv("IM_SERVER_CORES", c.env)
		if got := serverCores(c.p, c.endpoints); got != c.want {
			t.Errorf("%s: %d cores, want %d", c.name, got, c.want)
		}
	}
}
