// Command wildfire-exporter serves a community Wildfire IM server's health
// and online count as Prometheus metrics (package
// github.com/imbench/imbench/exporters/wildfire): every scrape of /metrics
// asks the server's admin API, signing with the admin secret
// (http.admin.secret_key) read from the environment variable -secret-env
// names. It listens on loopback unless -allow-remote.
//
//	IM_SECRET=… wildfire-exporter -admin-url http://127.0.0.1:18080 -listen 127.0.0.1:12080
package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/imbench/imbench/exporters/wildfire"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "wildfire-exporter:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("wildfire-exporter", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:12080", "address to serve /metrics on")
	allowRemote := fs.Bool("allow-remote", false, "allow a -listen address beyond loopback")
	adminURL := fs.String("admin-url", "http://127.0.0.1:18080", "the Wildfire admin API (http.admin.port)")
	secretEnv := fs.String("secret-env", "IM_SECRET", "environment variable holding the admin secret (http.admin.secret_key)")
	timeout := fs.Duration("timeout", 4*time.Second, "how long one scrape waits for the admin API")
	logFormat := fs.String("log-format", "text", "text or json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := wildfire.CheckListen(*listen, *allowRemote); err != nil {
		return err
	}
	if u, err := url.Parse(*adminURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("-admin-url %q must be http(s)://host:port", *adminURL)
	}
	if *timeout <= 0 {
		return errors.New("-timeout must be positive")
	}
	secret := os.Getenv(*secretEnv)
	if secret == "" {
		return fmt.Errorf("%s is empty: set it to the server's http.admin.secret_key (online_count is signed with it)", *secretEnv)
	}
	var h slog.Handler = slog.NewTextHandler(os.Stderr, nil)
	switch *logFormat {
	case "text":
	case "json":
		h = slog.NewJSONHandler(os.Stderr, nil)
	default:
		return fmt.Errorf("-log-format %q: want text or json", *logFormat)
	}
	log := slog.New(h)

	reg := prometheus.NewRegistry()
	reg.MustRegister(wildfire.NewExporter(wildfire.NewAdmin(*adminURL, secret, *secretEnv), *timeout, log))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(h, slog.LevelError)}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "wildfire-exporter for %s: /metrics\n", *adminURL)
	})
	log.Info("wildfire-exporter listening", "listen", *listen, "admin", *adminURL, "secret_env", *secretEnv)
	srv := &http.Server{Addr: *listen, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	return srv.ListenAndServe()
}
