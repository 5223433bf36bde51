package observe

import (
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/stack/console"

	"github.com/imbench/imbench/dashboards"
	"github.com/imbench/imbench/internal/lokipush"
	"github.com/imbench/imbench/internal/stack"
)

// With neither Prometheus nor VictoriaLogs answering, a run goes on and
// says that its metrics and logs stay local.
func TestObserveSaysWhatIsNotShipped(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := l.Addr().String()
	l.Close()
	t.Setenv("IMBENCH_PROMETHEUS", down)
	t.Setenv("IMBENCH_VICTORIALOGS", down)
	t.Setenv("IMBENCH_NO_OBSERVE", "")
	o := Native("r1")
	notes := strings.Join(o.Notes, "\n")
	if o.PromWrite != "" || o.LogPush != "" || o.Logs != "" ||
		!strings.Contains(notes, "Prometheus is not up") || !strings.Contains(notes, "VictoriaLogs is not up") {
		t.Fatalf("promWrite %q logPush %q logs %q notes %q", o.PromWrite, o.LogPush, o.Logs, notes)
	}
}

// With VictoriaLogs up, a run pushes its log there by Loki's protocol
// (internal/lokipush, as the runner and the reference target do); the
// dashboard's log panel finds the run's lines and the target's, and
// PrintLogProblems the run's warnings and errors, and nothing else.
func TestObserveShipsTheLogToVictoriaLogs(t *testing.T) {
	base := startVictoriaLogs(t)
	t.Setenv("IMBENCH_VICTORIALOGS", strings.TrimPrefix(base, "http://"))
	t.Setenv("IMBENCH_NO_OBSERVE", "")
	run := "obs-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	o := Native(run)
	notes := strings.Join(o.Notes, "\n")
	if o.LogPush != base+"/insert/loki/api/v1/push" || o.Logs != base ||
		!strings.Contains(notes, "log → VictoriaLogs "+base+"/select/vmui/ (run_id=\""+run+"\")") {
		t.Fatalf("logPush %q logs %q notes %q", o.LogPush, o.Logs, notes)
	}

	push := func(runID string, lines func(*slog.Logger)) {
		p := lokipush.New(o.LogPush, map[string]string{"run_id": runID, "job": "imbench", "target": "reference", "scenario": "openim_test1"})
		lines(slog.New(p.Handler(slog.NewTextHandler(io.Discard, nil))))
		p.Close()
	}
	push(run, func(l *slog.Logger) {
		l.Info("setup: 10 users registered")
		l.Warn("send failed", "user", "u7")
		l.Error("target unreachable")
	})
	push(run+"-other", func(l *slog.Logger) { l.Warn("another run's warning") })
	// What the terminal showed already (internal/console) is not shown again.
	cp := lokipush.New(o.LogPush, map[string]string{"run_id": run, "job": "imbench", "source": console.Source})
	cp.Line("WARN", "imbench: thresholds crossed: lost count==0")
	cp.Close()
	// The reference target's own log, with its labels (targets/reference).
	tp := lokipush.New(o.LogPush, map[string]string{"job": "imbench-target", "target": "reference"})
	slog.New(tp.Handler(slog.NewTextHandler(io.Discard, nil))).Info("listening")
	tp.Close()
	from := time.Now().Add(-time.Minute)
	waitForLogs(t, base, `{run_id="`+run+`"}`, from, 4)
	waitForLogs(t, base, `{job="imbench-target"}`, from, 1)

	// The dashboard's log panel, its LogsQL as generated: the run's lines
	// and the target's, not another run's.
	fill := strings.NewReplacer("$run_id", run, "$target", "reference")
	panels := 0
	for _, p := range dashboards.Build()["im-benchmark.json"].Panels {
		for _, tg := range p.Targets {
			if tg.Datasource["uid"] != dashboards.LogsUID {
				continue
			}
			panels++
			jobs := map[string]int{}
			for _, l := range logsQL(t, base, fill.Replace(tg.Expr), from, time.Now()) {
				if l["run_id"] != "" && l["run_id"] != run {
					t.Errorf("%q shows another run's line %v", p.Title, l)
				}
				jobs[l["job"]]++
			}
			if jobs["imbench"] != 4 || jobs["imbench-target"] != 1 {
				t.Errorf("%q (%s) finds lines by job %v, want imbench:4 imbench-target:1", p.Title, tg.Expr, jobs)
			}
		}
	}
	if panels != 1 {
		t.Errorf("%d log panel queries on the benchmark dashboard, want 1", panels)
	}

	out := captureStdout(t, func() { PrintLogProblems(o.Logs, run) })
	for _, want := range []string{"from VictoriaLogs", `WARN: send failed user=u7`, `ERROR: target unreachable`} {
		if !strings.Contains(out, want) {
			t.Errorf("PrintLogProblems lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"setup:", "another run", "thresholds crossed"} {
		if strings.Contains(out, not) {
			t.Errorf("PrintLogProblems shows %q:\n%s", not, out)
		}
	}
}

// startVictoriaLogs runs the built victoria-logs on a free loopback port
// with its data in a temporary directory, until the test ends.
func startVictoriaLogs(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("IMBENCH_TOOLS")
	if dir == "" {
		dir, _ = filepath.Abs("../../.tools/bin")
	}
	bin := filepath.Join(dir, "victoria-logs")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("victoria-logs not built in %s: run `make test` (or make .tools/bin/victoria-logs)", dir)
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "-httpListenAddr="+addr, "-storageDataPath="+t.TempDir(), "-loggerLevel=ERROR")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); !stack.Healthy(base + "/health"); {
		if time.Now().After(deadline) {
			t.Fatalf("victoria-logs did not answer %s/health within 30 s", base)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return base
}

// logsQL runs a LogsQL query as Grafana's VictoriaLogs plugin runs a logs
// panel's (queryType instant): /select/logsql/query with start and end in
// Unix seconds and a line limit. It returns the lines, each its fields.
func logsQL(t *testing.T, base, query string, from, to time.Time) []map[string]string {
	t.Helper()
	lines, err := QueryLogs(base, query, from, to, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// waitForLogs waits until query finds at least n lines: VictoriaLogs makes
// what it ingests searchable within about a second.
func waitForLogs(t *testing.T, base, query string, from time.Time, n int) []map[string]string {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; {
		lines := logsQL(t, base, query, from, time.Now())
		if len(lines) >= n {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("LogsQL %q: %d lines after 15 s, want %d", query, len(lines), n)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// captureStdout returns what f prints.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	defer func() { os.Stdout = saved }()
	f()
	w.Close()
	os.Stdout = saved
	return <-done
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
