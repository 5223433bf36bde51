package reftest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/imbench/imbench/load/engine"
	_ "github.com/imbench/imbench/load/openim"
	"github.com/imbench/imbench/load/plan"
	"github.com/imbench/imbench/load/verify"
	_ "github.com/imbench/imbench/load/wildfire"
	_ "github.com/imbench/imbench/load/wukongim"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/openim"
	"github.com/imbench/imbench/targets/reference/wildfire"
	"github.com/imbench/imbench/targets/reference/wukongim"
	oiwire "github.com/imbench/imbench/wire/openim"
	wfwire "github.com/imbench/imbench/wire/wildfire"
	wkwire "github.com/imbench/imbench/wire/wukongim"
)

// allTarget is the reference target as `imbench-target -role all` serves
// it: one core behind all three front ends, every port of its own.
type allTarget struct {
	core               *core.Core
	secret             string
	oiAPI, oiWS        string // http://…, ws://…
	wkAPI, wkTCP, wkWS string // http://…, host:port, ws://…
	wfAdmin, wfMQTT    string // http://…, host:port
	errlog             *syncBuffer
}

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

// startAll serves one core with every front end, as main does for role
// all, with short login deadlines so that refused and silent connections
// end within the test, and idle HTTP connections (before or between
// requests) closed after a second. net/http recovers a handler's panic and
// logs it: the servers' error logs are kept to find one.
func startAll(t *testing.T) *allTarget {
	t.Helper()
	m := core.NewMetrics()
	lg := slog.New(slog.DiscardHandler)
	c, err := core.New(core.Config{Secret: "test-secret", Log: lg}, m)
	if err != nil {
		t.Fatal(err)
	}
	a := &allTarget{core: c, secret: "test-secret", errlog: &syncBuffer{}}
	serve := func(h http.Handler) *httptest.Server {
		s := httptest.NewUnstartedServer(h)
		s.Config.ErrorLog = log.New(a.errlog, "", 0)
		// The drivers' REST clients keep their idle connections, and
		// connections dialed but never used (a transport of their own
		// per round): the server ends them.
		s.Config.IdleTimeout, s.Config.ReadHeaderTimeout = time.Second, time.Second
		s.Start()
		t.Cleanup(func() {
			s.CloseClientConnections()
			s.Close()
		})
		return s
	}
	listen := func() *trackingListener {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		tl := &trackingListener{Listener: l}
		t.Cleanup(tl.closeAll)
		return tl
	}
	ws := func(s *httptest.Server) string { return "ws" + strings.TrimPrefix(s.URL, "http") }

	oi := openim.New(m, lg)
	a.oiAPI = serve(oi.API(c)).URL
	a.oiWS = ws(serve(oi.Gateway(c, 0)))

	wk := wukongim.New(m, lg)
	wk.Encryption = true
	wk.ConnectTimeout, wk.AuthFailDelay, wk.KickDelay = 300*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond
	a.wkAPI = serve(wk.API(c)).URL
	a.wkWS = ws(serve(wk.Gateway(c, 0)))
	tcp := listen()
	go wk.ServeTCP(tcp, c, 0)
	a.wkTCP = tcp.Addr().String()
	wk.Route = wkwire.RouteResp{TCPAddr: a.wkTCP, WSAddr: a.wkWS}

	wf := wildfire.New(c, m, lg)
	wf.ConnectTimeout, wf.KickDelay = 300*time.Millisecond, 200*time.Millisecond
	a.wfAdmin = serve(wf.API()).URL
	mqtt := listen()
	go wf.ServeMQTT(mqtt)
	a.wfMQTT = mqtt.Addr().String()
	return a
}

// targets are the three protocols' views of it, as a run's profile names them.
func (a *allTarget) targets() []engine.Target {
	opts := map[string]any{"secret": a.secret}
	return []engine.Target{
		{Name: "reference", System: "openim", Endpoints: map[string]string{"api": a.oiAPI, "ws": a.oiWS}, Options: opts},
		{Name: "reference", System: "wukongim", Endpoints: map[string]string{"wukongim_api": a.wkAPI,
			"wukongim_tcp": "tcp://" + a.wkTCP, "wukongim_ws": a.wkWS}, Options: opts},
		{Name: "reference", System: "wukongim", Endpoints: map[string]string{"wukongim_api": a.wkAPI,
			"wukongim_tcp": "tcp://" + a.wkTCP, "wukongim_ws": a.wkWS}, Options: map[string]any{"secret": a.secret, "transport": "ws"}},
		{Name: "reference", System: "wildfire", Endpoints: map[string]string{"wildfire_admin": a.wfAdmin,
			"wildfire_mqtt": "tcp://" + a.wfMQTT}, Options: opts},
	}
}

var roundSeq atomic.Int64

// realRound logs users in over tgt's protocol, sends between pairs, logs
// late receivers in and drains, as a run does: every expected delivery
// arrives, nothing is lost, corrupt or foreign.
func realRound(t *testing.T, tgt engine.Target) error {
	prefix := fmt.Sprintf("r%d", roundSeq.Add(1))
	w := plan.Workload{Name: "garbage/" + prefix, Prefix: prefix + "_", BodySize: 100,
		Classes: []json.RawMessage{json.RawMessage(`{"kind":"pairs","pairs":3,"lateShare":0.34,"totalRate":100,"messages":3}`)}}
	p, err := w.Build()
	if err != nil {
		return err
	}
	_, proto, err := tgt.Open()
	if err != nil {
		return err
	}
	d, err := proto.Driver(p, 20*time.Second)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := d.Setup(ctx, func(string) {}); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	sh := engine.NewShared("garbage-"+prefix, p, d, engine.Options{DrainQuiet: 300 * time.Millisecond})
	lo, hi, _ := p.UserRange(1, 1)
	s := sh.NewSession(ctx, lo, hi)
	defer s.Close()
	if r := s.Login(plan.Immediate); r.Failed > 0 {
		return fmt.Errorf("login: %v", r.FirstErr)
	}
	s.Send(time.Now().Add(20*time.Millisecond), 20*time.Second)
	if r := s.Login(plan.Late); r.Failed > 0 {
		return fmt.Errorf("late login: %v", r.FirstErr)
	}
	s.Drain()
	s.Close()
	tot := sh.Totals()
	in, ob := map[uint32]*verify.Inbox{}, map[uint32]*verify.Outbox{}
	for _, u := range s.Users() {
		in[u.Index()], ob[u.Index()] = u.Inbox(), u.Outbox()
	}
	rec := verify.Reconcile(p, tot.Expected, in, ob, 5)
	exp, got := verify.Sum(tot.Expected), verify.Sum(tot.Pushed)+verify.Sum(tot.Pulled)
	if exp == 0 || got != exp || verify.Sum(rec.Lost) != 0 || tot.Corrupt+tot.Foreign != 0 || verify.Sum(tot.SendFailed) != 0 {
		return fmt.Errorf("expected %d deliveries, got %d, lost %d, corrupt %d, foreign %d, failed sends %d",
			exp, got, verify.Sum(rec.Lost), tot.Corrupt, tot.Foreign, verify.Sum(tot.SendFailed))
	}
	return nil
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// quiet closes the test's own idle HTTP connections (the drivers' REST
// calls keep them) and lets the servers' goroutines for ended connections
// return.
func quiet() {
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	runtime.GC()
}

// Garbage, malformed frames and undecodable requests on every port of the
// reference target, from several connections at once, while real logins
// and sends go on through the other ports (and the same ones): every real
// round delivers everything, nothing panics (a handler's panic that
// net/http would recover is looked for in its log), and once the garbage
// connections have ended, goroutines and descriptors are back to what they
// were before.
func TestGarbageOnEveryPortLeavesTheOthersServing(t *testing.T) {
	a := startAll(t)
	tgts := a.targets()
	for _, tgt := range tgts { // warm up: pollers, pools, lazily started loops
		if err := realRound(t, tgt); err != nil {
			t.Fatalf("%s before the garbage: %v", tgt.System, err)
		}
	}
	// settle waits for the counts to stop falling (for a second and a
	// half, 15 s at most) and returns them.
	settle := func() (g, f int) {
		deadline := time.Now().Add(15 * time.Second)
		g, f = 1<<30, 1<<30
		stable := time.Now()
		for time.Now().Before(deadline) && time.Since(stable) < 1500*time.Millisecond {
			quiet()
			ng, nf := runtime.NumGoroutine(), openFDs(t)
			if ng < g || nf < f {
				stable = time.Now()
			}
			g, f = min(g, ng), min(f, nf)
			time.Sleep(50 * time.Millisecond)
		}
		return g, f
	}
	g0, f0 := settle()

	var wg sync.WaitGroup
	var conns atomic.Int64
	attackers := []struct {
		name string
		fn   func(rng *rand.Rand) int
	}{
		{"openim api", func(rng *rand.Rand) int { return a.garbageHTTP(rng, a.oiAPI, oiRoutes, a.oiHeaders(t)) }},
		{"openim ws", func(rng *rand.Rand) int { return a.garbageOpenIM(t, rng) }},
		{"wukongim api", func(rng *rand.Rand) int {
			return a.garbageHTTP(rng, a.wkAPI, wkRoutes, http.Header{"token": {a.secret}})
		}},
		{"wukongim tcp", func(rng *rand.Rand) int { return garbageStream(rng, a.wkTCP, wkFrames) }},
		{"wukongim ws", func(rng *rand.Rand) int { return a.garbageWS(rng, a.wkWS, wkFrames) }},
		{"wildfire admin", func(rng *rand.Rand) int { return a.garbageHTTP(rng, a.wfAdmin, wfRoutes, a.wfHeaders()) }},
		{"wildfire mqtt", func(rng *rand.Rand) int { return garbageStream(rng, a.wfMQTT, mqttFrames) }},
	}
	const perPort, rounds = 3, 6
	for i, at := range attackers {
		for j := 0; j < perPort; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(i), uint64(j)))
				for range rounds {
					conns.Add(int64(at.fn(rng)))
				}
			}()
		}
	}
	// While the garbage flows, and after: every protocol serves real users.
	var errs []string
	for pass := 0; pass < 2; pass++ {
		for _, tgt := range tgts {
			if err := realRound(t, tgt); err != nil {
				errs = append(errs, fmt.Sprintf("%s %v, pass %d: %v", tgt.System, tgt.Options["transport"], pass, err))
			}
		}
		if pass == 0 {
			wg.Wait()
		}
	}
	if len(errs) > 0 {
		t.Fatalf("real rounds failed:\n%s", strings.Join(errs, "\n"))
	}
	if log := a.errlog.String(); strings.Contains(log, "panic") {
		t.Fatalf("a handler panicked:\n%s", log)
	}
	const tolG, tolF = 6, 3
	g1, f1 := settle()
	t.Logf("%d garbage connections on %d ports; goroutines %d before, %d after; descriptors %d before, %d after; %d bytes of server error log",
		conns.Load(), len(attackers), g0, g1, f0, f1, len(a.errlog.String()))
	if g1 > g0+tolG || f1 > f0+tolF {
		buf := make([]byte, 1<<20)
		t.Fatalf("leak: goroutines %d → %d, descriptors %d → %d\n%s", g0, g1, f0, f1, buf[:runtime.Stack(buf, true)])
	}
}

// ---- HTTP ports ----

var (
	oiRoutes = []string{"/auth/get_admin_token", "/auth/get_user_token", "/user/user_register", "/user/account_check",
		"/friend/import_friend", "/group/create_group", "/group/invite_user_to_group", "/msg/get_server_time",
		"/msg/send_msg", "/nope"}
	wkRoutes = []string{wkwire.PathUserToken, wkwire.PathChannel, wkwire.PathSubscriberAdd, wkwire.PathSubscriberRemove,
		wkwire.PathMessageSend, wkwire.PathChannelMessageSync, wkwire.PathChannelMaxSeq, wkwire.PathRoute, wkwire.PathVarz, "/nope"}
	wfRoutes = []string{wfwire.PathUserCreate, wfwire.PathUserGetToken, wfwire.PathOnlineCount, wfwire.PathGroupCreate,
		wfwire.PathGroupMemberAdd, wfwire.PathChatroomCreate, wfwire.PathMessageSend, "/nope"}
)

func (a *allTarget) oiHeaders(t *testing.T) http.Header {
	tk, err := a.core.AdminToken(a.secret, "imAdmin", oiwire.PlatformAdmin)
	if err != nil {
		t.Error(err)
	}
	return http.Header{"operationID": {"garbage"}, "token": {tk}}
}

func (a *allTarget) wfHeaders() http.Header {
	h := http.Header{}
	wfwire.SetAdminHeaders(h, strconv.Itoa(rand.IntN(1e6)), a.secret, time.Now().UnixMilli())
	return h
}

// jsonish is a body that is, or nearly is, what a route reads.
func jsonish(rng *rand.Rand) []byte {
	shapes := []string{
		`{"userID":"%s","platformID":%d}`, `{"users":[{"userID":"%s","nickname":"x"}],"n":%d}`,
		`{"uid":"%s","token":"t","device_flag":%d}`, `{"channel_id":"%s","channel_type":%d,"subscribers":["a"]}`,
		`{"from_uid":"%s","channel_id":"x","channel_type":%d,"payload":"!!!"}`,
		`{"userId":"%s","name":"n","platform":%d}`, `{"groupInfo":{"groupID":"%s","groupType":%d},"memberUserIDs":null}`,
	}
	s := fmt.Sprintf(shapes[rng.IntN(len(shapes))], junkText(rng, 40), rng.Int64()-rng.Int64())
	switch rng.IntN(5) {
	case 0:
		return []byte(s[:rng.IntN(len(s)+1)]) // cut
	case 1:
		return []byte(strings.Repeat("[", 10000)) // deep
	case 2:
		return junk(rng, rng.IntN(3000))
	case 3:
		return []byte(strings.ReplaceAll(s, `"`, ``))
	}
	return []byte(s)
}

func junkText(rng *rand.Rand, n int) string {
	const chars = "ab_@#&\\\"\x00\xff é1/"
	b := make([]byte, rng.IntN(n+1))
	for i := range b {
		b[i] = chars[rng.IntN(len(chars))]
	}
	return string(b)
}

func junk(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// rawHTTP are requests net/http must refuse without calling a handler.
var rawHTTP = []string{
	"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
	"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nshort",
	"\x00\x01\x02 / HTTP/9.9\r\n\r\n",
	"GET / HTTP/1.1\r\nno colon here\r\n\r\n",
	"GET /" + strings.Repeat("a", 70000) + " HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nX: " + strings.Repeat("b", 1<<20+10) + "\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n",
}

// garbageHTTP sends a port raw junk, malformed requests, and well-formed
// requests with undecodable bodies to every route, with and without its
// credentials; it returns the connections it opened.
func (a *allTarget) garbageHTTP(rng *rand.Rand, base string, routes []string, auth http.Header) int {
	host := strings.TrimPrefix(base, "http://")
	n := 0
	n += garbageStream(rng, host, nil)
	n += rawRequest(host, rawHTTP[rng.IntN(len(rawHTTP))])
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	for _, r := range routes {
		method := http.MethodPost
		if rng.IntN(4) == 0 {
			method = http.MethodGet
		}
		req, _ := http.NewRequest(method, base+r, bytes.NewReader(jsonish(rng)))
		if rng.IntN(5) > 0 {
			for k, v := range auth {
				req.Header[k] = v
			}
		}
		if resp, err := cl.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	return n + 1
}

func rawRequest(host, req string) int {
	nc, err := net.DialTimeout("tcp", host, time.Second)
	if err != nil {
		return 0
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(2 * time.Second))
	io.WriteString(nc, req)
	io.Copy(io.Discard, nc)
	return 1
}

// ---- byte-stream ports: WuKongIM TCP, Wildfire MQTT ----

// Frames that split but do not decode, or come before a login.
var (
	wkFrames = [][]byte{
		{0x10, 0x03, 1, 2, 3},                           // CONNECT, short
		{0x30, 0xff, 0xff, 0xff, 0x7f},                  // SEND over the limit
		{0x30, 0x03, 1, 2, 3},                           // SEND before CONNECT
		{0xf0, 0x00},                                    // type 15
		{0x10, 0x80, 0x80, 0x80, 0x80, 0x01},            // five length bytes
		append([]byte{0x10, 0x40}, make([]byte, 64)...), // CONNECT of zeros
	}
	mqttFrames = [][]byte{
		{0x10, 0x02, 0x00, 0x00},                       // CONNECT, short
		{0x10, 0xff, 0xff, 0xff, 0x7f},                 // over the limit
		{0x32, 0x06, 0x00, 0x02, 'M', 'S', 0x00, 0x01}, // PUBLISH before CONNECT
		{0x00, 0x01, 0x02},                             // type 0
		{0x18, 0x00},                                   // CONNECT with flags
		append([]byte{0x10, 0x30, 0x00, 0x04, 'M', 'Q', 'T', 'T', 0x04, 0xc2, 0x00, 0x3c}, make([]byte, 36)...),
	}
)

// garbageStream opens a connection and writes random bytes or one of
// frames (with junk after), in one write or several; it reads what comes
// back for a moment and closes.
func garbageStream(rng *rand.Rand, host string, frames [][]byte) int {
	nc, err := net.DialTimeout("tcp", host, time.Second)
	if err != nil {
		return 0
	}
	defer nc.Close()
	var b []byte
	if len(frames) > 0 && rng.IntN(2) == 0 {
		b = append(append([]byte{}, frames[rng.IntN(len(frames))]...), junk(rng, rng.IntN(200))...)
	} else {
		b = junk(rng, 1+rng.IntN(4000))
	}
	nc.SetDeadline(time.Now().Add(time.Second))
	for len(b) > 0 {
		k := min(len(b), 1+rng.IntN(600))
		if _, err := nc.Write(b[:k]); err != nil {
			break
		}
		b = b[k:]
	}
	if rng.IntN(3) > 0 { // sometimes hang up at once
		nc.SetReadDeadline(time.Now().Add(time.Duration(50+rng.IntN(250)) * time.Millisecond))
		io.Copy(io.Discard, nc)
	}
	return 1
}

// ---- WebSocket ports ----

// rawWSFrames are client frames a server must refuse.
var rawWSFrames = [][]byte{
	{0x82, 0x05, 'h', 'e', 'l', 'l', 'o'}, // unmasked
	{0xc2, 0x80, 0, 0, 0, 0},              // RSV1
	{0x83, 0x80, 0, 0, 0, 0},              // opcode 3
	{0x8b, 0x80, 0, 0, 0, 0},              // opcode 11
	{0x09, 0x80, 0, 0, 0, 0},              // fragmented ping
	{0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4}, // 2^63-byte message
	{0x80, 0x81, 0, 0, 0, 0, 'x'},                                            // continuation first
	append([]byte{0x89, 0xfe, 0x00, 0xc8, 0, 0, 0, 0}, make([]byte, 200)...), // 200-byte ping
}

// garbageWS upgrades to ws and sends junk messages, frames that decode as
// packets of the protocol but carry junk, and frames that break RFC 6455.
func (a *allTarget) garbageWS(rng *rand.Rand, u string, frames [][]byte) int {
	c, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		return 0
	}
	defer c.Close()
	sendJunk(rng, c, frames)
	return 1
}

func sendJunk(rng *rand.Rand, c *websocket.Conn, frames [][]byte) {
	c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	for k := rng.IntN(4); k >= 0; k-- {
		var err error
		switch rng.IntN(5) {
		case 0:
			err = c.WriteMessage(websocket.BinaryMessage, junk(rng, rng.IntN(3000)))
		case 1:
			err = c.WriteMessage(websocket.TextMessage, []byte(junkText(rng, 200)))
		case 2:
			if len(frames) > 0 {
				f := append([]byte{}, frames[rng.IntN(len(frames))]...)
				if rng.IntN(2) == 0 {
					f = append(f, junk(rng, 20)...)
				}
				err = c.WriteMessage(websocket.BinaryMessage, f)
			}
		case 3:
			_, err = c.UnderlyingConn().Write(rawWSFrames[rng.IntN(len(rawWSFrames))])
		case 4:
			err = c.WriteMessage(websocket.PingMessage, junk(rng, rng.IntN(126)))
		}
		if err != nil {
			return
		}
	}
	c.SetReadDeadline(time.Now().Add(time.Duration(50+rng.IntN(250)) * time.Millisecond))
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			return
		}
	}
}

// garbageOpenIM logs in to the OpenIM gateway (or fails to, with junk
// query parameters) and sends requests whose envelope, compression or
// protobuf data do not decode, with junk frames as garbageWS does.
func (a *allTarget) garbageOpenIM(t *testing.T, rng *rand.Rand) int {
	if rng.IntN(4) == 0 {
		return garbageStream(rng, strings.TrimPrefix(a.oiWS, "ws://"), nil)
	}
	user := "junk" + strconv.Itoa(rng.IntN(8))
	a.core.Register([]string{user}) // an error: registered already
	platform := 1 + rng.IntN(9)
	tk, err := a.core.UserToken(user, platform)
	if err != nil {
		t.Error(err)
		return 0
	}
	env, gz := oiwire.Gob, rng.IntN(2) == 0
	q := url.Values{"sendID": {user}, "token": {tk}, "platformID": {strconv.Itoa(platform)}, "operationID": {"op"},
		"isBackground": {"false"}, "sdkType": {"go"}}
	if rng.IntN(2) == 0 {
		env = oiwire.JSON
		q.Set("sdkType", "js")
	}
	if gz {
		q.Set("compression", "gzip")
	}
	if rng.IntN(5) == 0 { // a login that must be refused
		q.Set([]string{"platformID", "sdkType", "isBackground", "token", "sendID"}[rng.IntN(5)], junkText(rng, 10))
		q.Set("isMsgResp", strconv.FormatBool(rng.IntN(2) == 0))
	}
	c, _, err := websocket.DefaultDialer.Dial(a.oiWS+"/?"+q.Encode(), nil)
	if err != nil {
		return 1
	}
	defer c.Close()
	var frames [][]byte
	for range 4 {
		r := oiwire.Req{ReqIdentifier: []int32{oiwire.ReqGetNewestSeq, oiwire.ReqPullMsgByRange, oiwire.ReqSendMsg,
			oiwire.LogoutMsg, rng.Int32()}[rng.IntN(5)], SendID: user, OperationID: "op", MsgIncr: "m", Data: junk(rng, rng.IntN(300))}
		if rng.IntN(4) == 0 {
			r.SendID = junkText(rng, 5)
		}
		b, err := env.AppendReq(nil, &r)
		if err != nil {
			continue
		}
		if rng.IntN(3) == 0 {
			b = b[:rng.IntN(len(b)+1)] // a cut envelope
		}
		if gz && rng.IntN(4) > 0 {
			var zb bytes.Buffer
			zw := gzip.NewWriter(&zb)
			zw.Write(b)
			zw.Close()
			b = zb.Bytes()
		}
		frames = append(frames, b)
	}
	sendJunk(rng, c, frames)
	return 1
}
