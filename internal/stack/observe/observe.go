// Package observe says where a run's metrics and log go: the native
// stack's Prometheus (remote write) and VictoriaLogs (Loki's push
// protocol), each only while it answers, or the compose stack's by its
// service names; and, after the run, which of its log lines were warnings
// and errors.
package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/imbench/imbench/internal/stack/console"

	"github.com/imbench/imbench/internal/stack"
)

// Observation is how a run reports into the stack, when the stack is up:
// the runner remote-writes its metrics to PromWrite and pushes its log with
// Loki's push protocol to LogPush (VictoriaLogs accepts it).
type Observation struct {
	PromWrite string // Prometheus remote-write URL, "" when Prometheus is down
	LogPush   string // the log store's Loki-protocol push URL, "" when it is down
	Logs      string // the log store's (VictoriaLogs') base URL, for the run's problems after it
	Notes     []string
	// Release ends what the run asked of the stack (its scrape targets);
	// Done calls it.
	Release func()
}

// Done releases what the run asked of the stack, once.
func (o *Observation) Done() {
	if o.Release != nil {
		o.Release()
		o.Release = nil
	}
}

// Native points run runID's metrics at the native stack's Prometheus and its
// log at its log store, each only if it answers. IMBENCH_NO_OBSERVE=1
// points them nowhere.
func Native(runID string) Observation {
	var o Observation
	if os.Getenv("IMBENCH_NO_OBSERVE") == "1" {
		return o
	}
	a := stack.Addrs()
	if stack.Healthy("http://" + a.Prometheus + "/-/ready") {
		o.PromWrite = "http://" + a.Prometheus + "/api/v1/write"
		o.Notes = append(o.Notes, fmt.Sprintf("metrics → Prometheus http://%s (run_id=%q)", a.Prometheus, runID))
	} else {
		o.Notes = append(o.Notes, "Prometheus is not up: the run's metrics stay in its summary only")
	}
	if stack.Healthy("http://" + a.VictoriaLogs + "/health") {
		o.Logs = "http://" + a.VictoriaLogs
		o.LogPush = o.Logs + stack.LogPushPath
		o.Notes = append(o.Notes, fmt.Sprintf("log → VictoriaLogs %s%s (run_id=%q)", o.Logs, stack.LogUIPath, runID))
	} else {
		o.Notes = append(o.Notes, "VictoriaLogs is not up: the run's log was not shipped (it stays on this terminal)")
	}
	return o
}

// Compose is Native for the compose stack's runner container: it reaches
// the stack by its service names.
func Compose() Observation {
	o := Observation{PromWrite: "http://prometheus:9090/api/v1/write", LogPush: "http://victorialogs:9428" + stack.LogPushPath,
		Logs: "http://127.0.0.1:9428"}
	o.Notes = append(o.Notes, "compose: the runner runs in its container; Grafana http://127.0.0.1:3000")
	return o
}

// problemsQuery is the LogsQL query for a run's warnings and errors: the
// runner's lines (stream labels run_id, job=imbench, target, scenario,
// level) at levels warning, error or fatal, however their level is spelled
// (slog's WARN and ERROR; other programs' warning and error). The lines
// the terminal showed already (source=console) are left out.
func problemsQuery(runID string) string {
	return fmt.Sprintf(`{run_id=%q} -source:=%s level:~"(?i)^(warn|warning|error|fatal)$" | sort by (_time) | limit 20`, runID, console.Source)
}

// QueryLogs runs a LogsQL query against the log store at base, as
// Grafana's VictoriaLogs plugin runs a logs panel's (queryType instant):
// /select/logsql/query with a time range and a line limit. Each line comes
// back as its fields (_msg, _time and the stream labels).
func QueryLogs(base, query string, from, to time.Time, limit int) ([]map[string]string, error) {
	q := url.Values{"query": {query}, "start": {strconv.FormatInt(from.Unix(), 10)},
		"end": {strconv.FormatInt(to.Unix()+1, 10)}, "limit": {strconv.Itoa(limit)}}
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(base + stack.LogQueryPath + "?" + q.Encode())
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("LogsQL %q: %s: %s", query, resp.Status, bytes.TrimSpace(b))
	}
	var lines []map[string]string
	dec := json.NewDecoder(resp.Body) // one JSON object a line
	for {
		var l map[string]string
		if err := dec.Decode(&l); err == io.EOF {
			return lines, nil
		} else if err != nil {
			return lines, fmt.Errorf("LogsQL %q: %w", query, err)
		}
		lines = append(lines, l)
	}
}

// PrintLogProblems shows the run's warnings and errors, which went to
// VictoriaLogs at base instead of the terminal.
func PrintLogProblems(base, runID string) {
	time.Sleep(1500 * time.Millisecond) // the runner pushes once a second
	lines, err := QueryLogs(base, problemsQuery(runID), time.Now().Add(-24*time.Hour), time.Now(), 20)
	if err != nil {
		return
	}
	for i, line := range lines {
		if i == 0 {
			fmt.Println("imbench: warnings and errors of the run (from VictoriaLogs):")
		}
		fmt.Printf("  %s: %s\n", line["level"], line["_msg"])
	}
}
