package wukongim

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	wire "github.com/imbench/imbench/wire/wukongim"
)

// route answers where clients connect: this front end's own addresses;
// ?intranet=1 gives the TCP address only, as the real server does.
func (a *api) route(r *http.Request, _ []byte) (any, error) {
	if r.URL.Query().Get("intranet") == "1" {
		return wire.RouteResp{TCPAddr: a.f.Route.TCPAddr}, nil
	}
	return a.f.Route, nil
}

// varzResp is /varz: the fields a benchmark reads plus the addresses.
type varzResp struct {
	wire.Varz
	TCPAddr string `json:"tcp_addr"`
	WSAddr  string `json:"ws_addr"`
	WSSAddr string `json:"wss_addr"`
}

// varz reports this process's live figures. Unlike the real server's (whose
// in_msgs and out_msgs add packet counts and ping bytes), in_msgs counts
// SENDs received and out_msgs RECVs written; connections, bytes and the
// retry queue are those of this process's WKProto connections.
func (a *api) varz(*http.Request, []byte) (any, error) {
	m := a.f.Metrics
	v := varzResp{Varz: wire.Varz{ServerID: strconv.FormatUint(a.f.NodeID, 10), ServerName: "WuKongIM",
		Version: "imbench-reference", Connections: int(m.conns.Load()), Uptime: uptime(time.Since(a.f.started)),
		Goroutine: runtime.NumGoroutine(), Mem: rss(), CPU: a.f.cpu.percent(),
		InMsgs: m.inMsgs.Load(), OutMsgs: m.outMsgs.Load(), InBytes: m.inBytes.Load(), OutBytes: m.outBytes.Load(),
		RetryQueue: m.retryQueue.Load()},
		TCPAddr: a.f.Route.TCPAddr, WSAddr: a.f.Route.WSAddr, WSSAddr: a.f.Route.WSSAddr}
	return v, nil
}

// uptime is written as the real server writes it: 1y2d3h4m5s, leading
// zero units left out.
func uptime(d time.Duration) string {
	s := int64(d / time.Second)
	parts := []struct {
		n    int64
		unit string
	}{{s / (365 * 86400), "y"}, {s / 86400 % 365, "d"}, {s / 3600 % 24, "h"}, {s / 60 % 60, "m"}, {s % 60, "s"}}
	var b strings.Builder
	for i, p := range parts {
		if b.Len() > 0 || p.n > 0 || i == len(parts)-1 {
			fmt.Fprintf(&b, "%d%s", p.n, p.unit)
		}
	}
	return b.String()
}

// rss is the process's resident memory in bytes (0 where /proc is absent).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// cpuMeter gives the process's CPU use, in percent of one core, between
// two looks (the first from the front end's start), as the real server's
// /varz reports recent use.
type cpuMeter struct {
	mu   sync.Mutex
	at   time.Time
	used time.Duration
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (m *cpuMeter) start() { m.at, m.used = time.Now(), processCPU() }

func (m *cpuMeter) percent() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	now, used := time.Now(), processCPU()
	wall, cpu := now.Sub(m.at), used-m.used
	m.at, m.used = now, used
	if wall <= 0 {
		return 0
	}
	return 100 * cpu.Seconds() / wall.Seconds()
}
