package stack

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A second checkout uses the stack that answers, started from another
// checkout: Prometheus' flags say where its state is, and this process
// then registers its runs there and reads the reference target's secret
// made there. A Prometheus whose config path says nothing (relative, as
// stacks started before said) is left alone.
func TestASecondCheckoutUsesTheRunningStack(t *testing.T) {
	inCheckout(t)
	first := t.TempDir()
	firstRun := filepath.Join(first, ".run")
	if err := os.MkdirAll(filepath.Join(firstRun, "prometheus"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(firstRun, "target.env"), []byte("IMBENCH_TARGET_SECRET=firstsecret\n"), 0o600)
	config := filepath.Join(firstRun, "prometheus", "prometheus.yml")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/status/flags":
			json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]string{"config.file": config}})
		case "/-/ready":
		default:
			http.NotFound(w, r)
		}
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	t.Setenv("IMBENCH_PROMETHEUS", l.Addr().String())
	saved := RunDir
	t.Cleanup(func() { RunDir = saved })

	if home := UseRunningStack(); home != first || RunDir != firstRun {
		t.Fatalf("home %q, state %q; want %q", home, RunDir, firstRun)
	}
	if secret, err := TargetSecret(false); err != nil || secret != "firstsecret" {
		t.Fatalf("secret %q, %v", secret, err)
	}
	r := registration{PID: os.Getpid(), Target: "reference"}
	if err := r.write(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.file(), firstRun) {
		t.Fatalf("registered at %s, not in %s", r.file(), firstRun)
	}

	RunDir = saved
	config = "relative/.run/prometheus/prometheus.yml"
	if home := UseRunningStack(); home != "" || RunDir != saved {
		t.Fatalf("a relative config path: home %q, state %q", home, RunDir)
	}
}
