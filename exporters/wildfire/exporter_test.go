package wildfire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	wire "github.com/imbench/imbench/wire/wildfire"
)

const serverSecret = "s3cret-of-the-server"

// fakeServer is a Wildfire admin API as far as the exporter uses it: an
// unsigned GET /admin/health and a signed POST /admin/user/online_count,
// the signature checked as the real server checks it.
type fakeServer struct {
	online  atomic.Int64
	health  string // the health result's JSON
	delay   time.Duration
	signed  atomic.Int64 // online_count calls with a good signature
	refused atomic.Int64
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body) // then a client gone cancels r.Context()
	select {
	case <-time.After(f.delay):
	case <-r.Context().Done():
		return
	}
	reply := func(code wire.ErrorCode, result string) {
		w.Header().Set("Content-Type", "application/json")
		if code != wire.CodeSuccess {
			fmt.Fprintf(w, `{"code":%d,"msg":"%s"}`, int(code), code)
			return
		}
		fmt.Fprintf(w, `{"code":0,"msg":"success","result":%s}`, result)
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == wire.PathHealth:
		reply(wire.CodeSuccess, f.health)
	case r.Method == http.MethodPost && r.URL.Path == wire.PathOnlineCount:
		nonce, ts, sign := wire.AdminHeaderValues(r.Header)
		if code := wire.CheckAdminSign(nonce, ts, sign, serverSecret, time.Now().UnixMilli(), false); code != wire.CodeSuccess {
			f.refused.Add(1)
			reply(code, "")
			return
		}
		f.signed.Add(1)
		reply(wire.CodeSuccess, fmt.Sprintf(`[{"node":1,"count":%d}]`, f.online.Load()))
	default:
		http.NotFound(w, r)
	}
}

const healthList = `[{"node":"1","cpu":{"load":1.25,"cores":8},"memory":{"free":100,"max":4000,"avail":2000},"disk":{"space":9000,"free":5000,"usable":4500}}]`

// syncBuffer is a log sink the exporter's goroutines may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newTestExporter(t *testing.T, url, secret string, timeout time.Duration) (*prometheus.Registry, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewExporter(NewAdmin(url, secret, "IM_SECRET"), timeout, slog.New(slog.NewTextHandler(logs, nil))))
	return reg, logs
}

// scrape gathers once and returns every sample as name{labels} → value.
func scrape(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			sort.Strings(labels)
			key := mf.GetName()
			if len(labels) > 0 {
				key += "{" + strings.Join(labels, ",") + "}"
			}
			switch {
			case m.GetGauge() != nil:
				out[key] = m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				out[key] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

func want(t *testing.T, got map[string]float64, key string, v float64) {
	t.Helper()
	g, ok := got[key]
	if !ok {
		t.Errorf("%s missing (have %v)", key, keys(got))
		return
	}
	if g != v {
		t.Errorf("%s = %v, want %v", key, g, v)
	}
}

func keys(m map[string]float64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestScrapeReadsHealthAndSignedOnlineCount(t *testing.T) {
	fake := &fakeServer{health: healthList}
	fake.online.Store(1234)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	reg, logs := newTestExporter(t, srv.URL, serverSecret, 2*time.Second)

	got := scrape(t, reg)
	want(t, got, "wildfire_up", 1)
	want(t, got, "wildfire_online_users{node=1}", 1234)
	want(t, got, "wildfire_health_cpu_cores{node=1}", 8)
	want(t, got, "wildfire_health_load{node=1}", 1.25)
	want(t, got, "wildfire_health_memory_bytes{kind=max,node=1}", 4000)
	want(t, got, "wildfire_health_memory_bytes{kind=avail,node=1}", 2000)
	want(t, got, "wildfire_health_memory_bytes{kind=free,node=1}", 100)
	want(t, got, "wildfire_health_disk_bytes{kind=space,node=1}", 9000)
	want(t, got, "wildfire_health_disk_bytes{kind=free,node=1}", 5000)
	want(t, got, "wildfire_health_disk_bytes{kind=usable,node=1}", 4500)
	want(t, got, "wildfire_scrape_collector_success{collector=health}", 1)
	want(t, got, "wildfire_scrape_collector_success{collector=online}", 1)
	want(t, got, "wildfire_scrape_errors_total{collector=online}", 0)
	want(t, got, "wildfire_scrape_errors_total{collector=health}", 0)
	if _, ok := got["wildfire_scrape_collector_duration_seconds{collector=online}"]; !ok {
		t.Error("no duration for collector online")
	}
	// Each scrape asks again: the count follows the server.
	fake.online.Store(7)
	want(t, scrape(t, reg), "wildfire_online_users{node=1}", 7)
	if fake.signed.Load() != 2 || fake.refused.Load() != 0 {
		t.Errorf("signed calls %d, refused %d; want 2, 0", fake.signed.Load(), fake.refused.Load())
	}
	if logs.String() != "" {
		t.Errorf("a healthy scrape logged: %s", logs)
	}
}

func TestWrongSecretIsDownWithAClearLogLine(t *testing.T) {
	fake := &fakeServer{health: healthList}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	const wrong = "not-the-servers-secret"
	reg, logs := newTestExporter(t, srv.URL, wrong, 2*time.Second)

	got := scrape(t, reg)
	want(t, got, "wildfire_up", 0)
	want(t, got, "wildfire_scrape_collector_success{collector=online}", 0)
	want(t, got, "wildfire_scrape_collector_success{collector=health}", 1) // unsigned: still read
	want(t, got, "wildfire_scrape_errors_total{collector=online}", 1)
	if _, ok := got["wildfire_online_users{node=1}"]; ok {
		t.Error("online users exported although the server refused the call")
	}
	if fake.refused.Load() != 1 {
		t.Errorf("server refused %d calls, want 1", fake.refused.Load())
	}
	line := logs.String()
	for _, s := range []string{"level=ERROR", "code 244", "IM_SECRET is not its http.admin.secret_key", "collector=online", srv.URL} {
		if !strings.Contains(line, s) {
			t.Errorf("log line lacks %q:\n%s", s, line)
		}
	}
	// The same failure again within a minute is not logged again.
	scrape(t, reg)
	if n := strings.Count(logs.String(), "\n"); n != 1 {
		t.Errorf("%d log lines after two identical failures, want 1:\n%s", n, logs)
	}
	want(t, scrape(t, reg), "wildfire_scrape_errors_total{collector=online}", 3)
}

// The secret is in no metric, label or log line, right or wrong.
func TestSecretIsNeverExportedOrLogged(t *testing.T) {
	fake := &fakeServer{health: healthList}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	for _, secret := range []string{serverSecret, "wrong-secret-value"} {
		reg, logs := newTestExporter(t, srv.URL, secret, 2*time.Second)
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(mfs)
		if strings.Contains(string(raw), secret) || strings.Contains(logs.String(), secret) {
			t.Errorf("secret %q leaked: metrics %s log %s", secret, raw, logs)
		}
	}
}

func TestServerDownIsDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	reg, logs := newTestExporter(t, "http://"+addr, serverSecret, 2*time.Second)
	got := scrape(t, reg)
	want(t, got, "wildfire_up", 0)
	want(t, got, "wildfire_scrape_collector_success{collector=health}", 0)
	want(t, got, "wildfire_scrape_collector_success{collector=online}", 0)
	if !strings.Contains(logs.String(), "not reachable") {
		t.Errorf("log does not say the admin API is not reachable:\n%s", logs)
	}
}

func TestSlowServerTimesOut(t *testing.T) {
	fake := &fakeServer{health: healthList, delay: 2 * time.Second}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	reg, logs := newTestExporter(t, srv.URL, serverSecret, 200*time.Millisecond)
	start := time.Now()
	got := scrape(t, reg)
	if d := time.Since(start); d > time.Second {
		t.Errorf("a scrape took %s with a 200ms timeout", d)
	}
	want(t, got, "wildfire_up", 0)
	if !strings.Contains(logs.String(), "timeout") {
		t.Errorf("log does not name the timeout:\n%s", logs)
	}
}

// Older servers answer health as an object keyed by node; a load the JVM
// cannot read (negative) is left out.
func TestHealthByNodeObjectAndUnreadableLoad(t *testing.T) {
	fake := &fakeServer{health: `{"node1":{"cpu":{"load":-1.0,"cores":2},"memory":{"free":1,"max":3,"avail":2},"disk":{"space":30,"free":20,"usable":10}}}`}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	reg, _ := newTestExporter(t, srv.URL, serverSecret, 2*time.Second)
	got := scrape(t, reg)
	want(t, got, "wildfire_up", 1)
	want(t, got, "wildfire_health_cpu_cores{node=1}", 2)
	want(t, got, "wildfire_health_disk_bytes{kind=usable,node=1}", 10)
	if _, ok := got["wildfire_health_load{node=1}"]; ok {
		t.Error("a negative (unreadable) load was exported")
	}
}

func TestRecoveryIsLogged(t *testing.T) {
	fake := &fakeServer{health: healthList}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	logs := &syncBuffer{}
	admin := NewAdmin(srv.URL, "wrong", "IM_SECRET")
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewExporter(admin, 2*time.Second, slog.New(slog.NewTextHandler(logs, nil))))
	want(t, scrape(t, reg), "wildfire_up", 0)
	admin.secret = serverSecret // as if the exporter were restarted with the right one
	want(t, scrape(t, reg), "wildfire_up", 1)
	if !strings.Contains(logs.String(), "answers again") {
		t.Errorf("recovery not logged:\n%s", logs)
	}
}

func TestCheckListen(t *testing.T) {
	for _, c := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:12080", false, true},
		{"127.0.0.2:12080", false, true},
		{"[::1]:12080", false, true},
		{"localhost:12080", false, true},
		{"0.0.0.0:12080", false, false},
		{":12080", false, false},
		{"10.0.0.5:12080", false, false},
		{"0.0.0.0:12080", true, true},
		{":12080", true, true},
		{"127.0.0.1", false, false},
		{"127.0.0.1:http-alt-nonsense", false, false},
	} {
		err := CheckListen(c.addr, c.remote)
		if (err == nil) != c.ok {
			t.Errorf("CheckListen(%q, %v) = %v, want ok %v", c.addr, c.remote, err, c.ok)
		}
	}
}

func TestAPIErrorsExplainThemselves(t *testing.T) {
	for code, hint := range map[wire.ErrorCode]string{
		wire.CodeAuthFailure:   "http.admin.secret_key",
		wire.CodeSignExpired:   "clock",
		wire.CodeAPINotSigned:  "signature headers",
		wire.CodeOverFrequency: "http.admin.rate_limit",
	} {
		msg := (&APIError{Path: wire.PathOnlineCount, Code: code, SecretEnv: "IM_SECRET"}).Error()
		if !strings.Contains(msg, hint) || !strings.Contains(msg, fmt.Sprint(int(code))) {
			t.Errorf("code %d: %q lacks %q", code, msg, hint)
		}
	}
}
