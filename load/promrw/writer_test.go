package promrw

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/imbench/imbench/internal/latency"
)

// A real Prometheus (make up's build) accepts what Writer sends: a counter
// and a native histogram come back from its query API with their values.
func TestPrometheusStoresWhatIsWritten(t *testing.T) {
	tools := os.Getenv("IMBENCH_TOOLS")
	if tools == "" {
		t.Skip("IMBENCH_TOOLS (make test sets it) names the built Prometheus")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(tools, "prometheus"), "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--web.enable-remote-write-receiver")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := "http://" + addr
	for i := 0; ; i++ {
		if resp, err := http.Get(base + "/-/ready"); err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			break
		}
		if i > 300 {
			t.Fatal("Prometheus did not become ready")
		}
		time.Sleep(100 * time.Millisecond)
	}
	var failures []string
	w := New(base+"/api/v1/write", nil, func(f string, a ...any) { failures = append(failures, fmt.Sprintf(f, a...)) })
	var n latency.Native
	for _, us := range []int64{1000, 2000, 2000, 40000} {
		n.Record(us)
	}
	now := time.Now()
	ts := w.Stamp(now)
	tags := map[string]string{"run_id": "r1", "empty": ""}
	w.Write([]TimeSeries{
		{Labels: Labels(tags, "imbench_test_total"), Samples: []Sample{{Value: 42, Timestamp: ts}}},
		{Labels: Labels(tags, "imbench_test_seconds"), Histograms: []Histogram{NativeHistogram(&n, ts)}},
	})
	w.Finish()
	if len(failures) > 0 {
		t.Fatal(failures)
	}
	query := func(q string) []any {
		v := url.Values{"query": {q}, "time": {fmt.Sprint(float64(now.UnixMilli()) / 1000)}}
		resp, err := http.Get(base + "/api/v1/query?" + v.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r struct {
			Data struct {
				Result []struct {
					Value     []any `json:"value"`
					Histogram []any `json:"histogram"`
				} `json:"result"`
			} `json:"data"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || len(r.Data.Result) != 1 {
			t.Fatalf("%s: %v %+v", q, err, r)
		}
		if r.Data.Result[0].Value != nil {
			return r.Data.Result[0].Value
		}
		return r.Data.Result[0].Histogram
	}
	if v := query(`imbench_test_total{run_id="r1"}`); v[1] != "42" {
		t.Errorf("counter: %v", v)
	}
	h := query(`imbench_test_seconds{run_id="r1"}`)[1].(map[string]any)
	if h["count"] != "4" || h["sum"] != "0.045" {
		t.Errorf("histogram: %v", h)
	}
}
