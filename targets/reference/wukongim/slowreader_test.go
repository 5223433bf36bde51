package wukongim_test

import (
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// dialSlow connects over TCP with a receive buffer of a few KiB: a client
// that stops reading stalls the server's writes at once, so what the server
// has to send for it waits in the server's own queue.
func dialSlow(t *testing.T, tg *reftest.WKTarget) *client {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	nc, err := d.Dial("tcp", strings.TrimPrefix(strings.Split(tg.TCPAddr, ",")[0], "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, version: wire.LatestVersion, nc: nc}
	t.Cleanup(c.close)
	return c
}

// A client that reads slower than its pushes come meets what it meets on
// the real server: its RECVs queue without a cap and all of them arrive,
// late, and its connection stays (pkg/wknet's outbound ring buffer grows;
// nothing closes a connection for it). 10,000 RECVs is well past the
// 4,096 frames after which the reference once closed such a client.
func TestSlowReaderGetsEverything(t *testing.T) {
	const n = 10000
	text := strings.Repeat("m", 1000) // 10 MB in all: more than the kernel's buffers hold
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	users(t, tg, "a", "b")
	a := online(t, tg, viaTCP, "a")
	b := dialSlow(t, tg)
	b.connect(login{uid: "b", token: "tk-b"})
	sends := make([]wire.Packet, 0, 500)
	for i := range n {
		sends = append(sends, a.sendPacket("b", wire.ChannelPerson, text))
		if len(sends) == cap(sends) || i == n-1 {
			a.write(sends...)
			sends = sends[:0]
		}
	}
	for range n {
		if ack := a.must(20 * time.Second).(wire.Sendack); ack.ReasonCode != wire.ReasonSuccess {
			t.Fatalf("SENDACK %+v", ack)
		}
	}
	time.Sleep(time.Second) // b has read nothing yet: everything waits for it
	for i := range n {
		r, got := b.recv(20 * time.Second)
		if got != text || r.MessageSeq != uint32(i+1) {
			t.Fatalf("RECV %d: %+v, %d bytes", i, r, len(got))
		}
	}
	b.quiet() // still connected, nothing more
	if tg.Counter(t, "imbench_target_connections") != 2 {
		t.Fatalf("connections %v, want both still open", tg.Counter(t, "imbench_target_connections"))
	}
}
