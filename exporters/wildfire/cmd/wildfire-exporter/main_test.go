package main

import (
	"strings"
	"testing"
)

// Bad input stops the exporter with one line before it listens.
func TestRunRefusesBadInput(t *testing.T) {
	t.Setenv("IM_SECRET", "x")
	t.Setenv("WF_EMPTY", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-listen", "0.0.0.0:12080"}, "-allow-remote"},
		{[]string{"-listen", "127.0.0.1:0", "-secret-env", "WF_EMPTY"}, "WF_EMPTY is empty"},
		{[]string{"-listen", "127.0.0.1:0", "-admin-url", "tcp://127.0.0.1:1883"}, "http(s)://"},
		{[]string{"-listen", "127.0.0.1:0", "-log-format", "xml"}, "text or json"},
	} {
		err := run(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run(%v) = %v, want an error naming %q", c.args, err, c.want)
		}
	}
}
