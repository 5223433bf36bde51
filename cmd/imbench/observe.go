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
// Loki's push protocol to logPush (VictoriaLogs accepts it).
type observation struct {
	promWrite string // Prometheus remote-write URL, "" when Prometheus is down
	logPush   string // the log store's Loki-protocol push URL, "" when it is down
	logs      string // the log store's (VictoriaLogs') base URL, for the run's problems after it
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
	if healthy("http://" + a.victorialogs + "/health") {
		o.logs = "http://" + a.victorialogs
		o.logPush = o.logs + logPushPath
		o.notes = append(o.notes, fmt.Sprintf("log → VictoriaLogs %s%s (run_id=%q)", o.logs, logUIPath, rc.runID))
	} else {
		o.notes = append(o.notes, "VictoriaLogs is not up: the run's log was not shipped (it stays on this terminal)")
	}
	return o
}

// problemsQuery is the LogsQL query for a run's warnings and errors: the
// runner's lines (stream labels run_id, job=imbench, target, scenario,
// level) at levels warning, error or fatal, however their level is spelled
// (slog's WARN and ERROR, k6's warning and error).
func problemsQuery(runID string) string {
	return fmt.Sprintf(`{run_id=%q} level:~"(?i)^(warn|warning|error|fatal)$" | sort by (_time) | limit 20`, runID)
}

// printLogProblems shows the run's warnings and errors, which went to
// VictoriaLogs instead of the terminal.
func printLogProblems(base, runID string) {
	time.Sleep(1500 * time.Millisecond) // the runner pushes once a second
	q := url.Values{}
	q.Set("query", problemsQuery(runID))
	q.Set("start", time.Now().Add(-24*time.Hour).UTC().Format(time.RFC3339))
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(base + logQueryPath + "?" + q.Encode())
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return
	}
	// One JSON object a line, each with _msg and the stream labels as fields.
	dec := json.NewDecoder(resp.Body)
	n := 0
	for {
		var line map[string]string
		if dec.Decode(&line) != nil {
			break
		}
		if n == 0 {
			fmt.Println("imbench: warnings and errors of the run (from VictoriaLogs):")
		}
		fmt.Printf("  %s: %s\n", line["level"], line["_msg"])
		n++
	}
}

// observeCompose is observe for the runner container: it reaches the
// stack by its service names.
func observeCompose(rc *runConfig) observation {
	o := observation{promWrite: "http://prometheus:9090/api/v1/write", logPush: "http://victorialogs:9428" + logPushPath,
		logs: "http://127.0.0.1:9428"}
	o.notes = append(o.notes, "compose: the runner runs in its container; Grafana http://127.0.0.1:3000")
	return o
}
