package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// observation is how a run reports into the stack, when the stack is up.
type observation struct {
	args, env []string
	notes     []string
	loki      string // base URL, when k6 logs there
}

// observe sends k6's metrics to Prometheus (remote write, trends as native
// histograms) and its log to Loki, each only if it answers. k6/x/im reads the
// same -o flag and K6_PROMETHEUS_RW_SERVER_URL to remote-write its latency
// histograms, which are not k6 trends.
func observe(rc *runConfig) observation {
	var o observation
	if os.Getenv("IMBENCH_NO_OBSERVE") == "1" {
		return o
	}
	a := stackAddrs()
	if healthy("http://" + a.prometheus + "/-/ready") {
		o.args = append(o.args, "-o", "experimental-prometheus-rw")
		o.env = append(o.env,
			"K6_PROMETHEUS_RW_SERVER_URL=http://"+a.prometheus+"/api/v1/write",
			"K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true",
			"K6_PROMETHEUS_RW_PUSH_INTERVAL=5s",
			// No stale markers: im_lost arrives in k6's last push, and a stale
			// marker right behind it would hide it from every rule and query.
			"K6_PROMETHEUS_RW_STALE_MARKERS=false")
		o.notes = append(o.notes, fmt.Sprintf("metrics → Prometheus http://%s (run_id=%q)", a.prometheus, rc.runID))
	} else {
		o.notes = append(o.notes, "Prometheus is not up: the run's metrics stay in its summary only")
	}
	if healthy("http://" + a.loki + "/ready") {
		o.loki = "http://" + a.loki
		o.args = append(o.args, lokiLogOutput(o.loki, rc))
		o.notes = append(o.notes, fmt.Sprintf("k6 log → Loki %s {run_id=%q}", o.loki, rc.runID))
	} else {
		o.notes = append(o.notes, "Loki is not up: the k6 log was not shipped (it stays on this terminal)")
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

// observeCompose is observe for the runner container: it reaches Loki by
// its service name; Prometheus remote write is set in docker-compose.yml.
func observeCompose(rc *runConfig) observation {
	o := observation{loki: "http://127.0.0.1:3100"}
	o.args = append(o.args, "-o", "experimental-prometheus-rw", lokiLogOutput("http://loki:3100", rc))
	o.notes = append(o.notes, "compose: k6 runs in the runner container; Grafana http://127.0.0.1:3000")
	return o
}

// lokiLogOutput sends k6's log to the Loki at base. Stream labels are the
// run's identity and the level, nothing that grows with the run: other
// fields go into the line.
func lokiLogOutput(base string, rc *runConfig) string {
	return "--log-output=loki=" + base + "/loki/api/v1/push" +
		",label.run_id=" + rc.runID + ",label.job=k6,label.target=" + rc.target.Name +
		",label.scenario=" + strings.ReplaceAll(rc.scenario, "/", "_") +
		",allowedLabels=[level,run_id,job,target,scenario],limit=1000,pushPeriod=1s"
}
