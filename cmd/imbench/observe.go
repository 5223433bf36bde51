package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"
)

// observation is how a run reports into the stack, when the stack is up:
// the runner remote-writes its metrics to promWrite and pushes its log with
// Loki's push protocol to logPush.
type observation struct {
	promWrite string // Prometheus remote-write URL, "" when Prometheus is down
	logPush   string // the log store's Loki-protocol push URL, "" when it is down
	logs      string // the log store's base URL, for the run's problems after it
	notes     []string
}

// observe points the run's metrics at Prometheus and its log at the log
// store, each only if it answers.
func observe(rc *runConfig) observation {
	var o observation
	if os.Getenv("IMBENCH_NO_OBSERVE") == "1" {
		return o
	}
	a := stackAddrs()
	if healthy("http://" + a.prometheus + "/-/ready") {
		o.promWrite = "http://" + a.prometheus + "/api/v1/write"
		o.notes = append(o.notes, fmt.Sprintf("metrics → Prometheus http://%s (run_id=%q)", a.prometheus, rc.runID))
	} else {
		o.notes = append(o.notes, "Prometheus is not up: the run's metrics stay in its summary only")
	}
	if healthy("http://" + a.loki + "/ready") {
		o.logs = "http://" + a.loki
		o.logPush = o.logs + "/loki/api/v1/push"
		o.notes = append(o.notes, fmt.Sprintf("log → Loki %s {run_id=%q}", o.logs, rc.runID))
	} else {
		o.notes = append(o.notes, "Loki is not up: the run's log was not shipped (it stays on this terminal)")
	}
	return o
}

// printLogProblems shows the run's warnings and errors, which went to Loki
// instead of the terminal.
func printLogProblems(base, runID string) {
	time.Sleep(1500 * time.Millisecond) // k6 pushes once a second
	q := url.Values{}
	q.Set("query", fmt.Sprintf(`{run_id=%q, level=~"warning|error|fatal"}`, runID))
	q.Set("start", fmt.Sprint(time.Now().Add(-24*time.Hour).UnixNano()))
	q.Set("limit", "20")
	q.Set("direction", "forward")
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(base + "/loki/api/v1/query_range?" + q.Encode())
	if err != nil {
		return
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct {
				Stream map[string]string `json:"stream"`
				Values [][2]string       `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&r) != nil {
		return
	}
	n := 0
	for _, s := range r.Data.Result {
		for _, v := range s.Values {
			if n == 0 {
				fmt.Println("imbench: warnings and errors of the run (from Loki):")
			}
			fmt.Printf("  %s: %s\n", s.Stream["level"], v[1])
			n++
		}
	}
}

// observeCompose is observe for the runner container: it reaches the
// stack by its service names.
func observeCompose(rc *runConfig) observation {
	o := observation{promWrite: "http://prometheus:9090/api/v1/write", logPush: "http://loki:3100/loki/api/v1/push",
		logs: "http://127.0.0.1:3100"}
	o.notes = append(o.notes, "compose: the runner runs in its container; Grafana http://127.0.0.1:3000")
	return o
}
