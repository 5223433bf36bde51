package openim_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	wire "github.com/imbench/imbench/wire/openim"
)

// A client that reads slower than its pushes come meets what it meets on
// a real msggateway: its connection's writer channel holds 256 frames, and
// the push that finds it full closes the connection ("websocket write
// buffer full,close connection", client_conn.go); there is no write
// deadline. The client here stops reading with a receive buffer of a few
// KiB while 3,000 pushes of 2 KiB that gzip cannot shrink come its way:
// more than the kernel's buffers and 256 frames hold.
func TestSlowReaderIsClosedAsMsggatewayDoes(t *testing.T) {
	s := start(t, false)
	s.world(t)
	a := dial(t, s, "a", s.userToken(t, "a", 2), 2, wire.Gob)
	q := url.Values{"sendID": {"b"}, "token": {s.userToken(t, "b", 2)}, "platformID": {"2"}, "operationID": {"op"},
		"isBackground": {"false"}, "compression": {"gzip"}, "sdkType": {wire.Gob.SDKType()}}
	d := websocket.Dialer{NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		nd := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
			return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		}}
		return nd.DialContext(ctx, network, addr)
	}}
	b, _, err := d.Dial(s.ws+"/?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	waitOnline := func(want float64, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		for float64(s.metrics.Counts.OnlineUsers()) != want {
			if time.Now().After(deadline) {
				t.Fatalf("online users %v, want %v", s.metrics.Counts.OnlineUsers(), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitOnline(2, 10*time.Second)
	const n = 3000
	// a sends with at most 64 in flight, as a client that waits for its
	// answers, and reads everything (answers, its own messages' copies):
	// only b falls behind.
	replied := make(chan struct{}, n)
	go func() {
		for r := range a.frames {
			if r.ReqIdentifier == wire.ReqSendMsg {
				replied <- struct{}{}
			}
		}
	}()
	for i := range n {
		if i >= 64 {
			<-replied
		}
		raw := make([]byte, 1024)
		rand.Read(raw)
		a.send(wire.ReqSendMsg, "a", text("a", "", "b", fmt.Sprintf("%d-%s", i, hex.EncodeToString(raw))))
	}
	for range 64 {
		<-replied
	}
	waitOnline(1, 3*time.Second) // the gateway closed b at the overflow, not after some write timeout
	// b gets what was written before the close, then the end.
	got := 0
	b.SetReadDeadline(time.Now().Add(10 * time.Second))
	began := time.Now()
	for {
		if _, _, err := b.ReadMessage(); err != nil {
			t.Logf("read ended after %s: %v", time.Since(began), err)
			break
		}
		got++
	}
	if got >= n {
		t.Fatalf("all %d pushes arrived: nothing overflowed", got)
	}
	t.Logf("%d of %d pushes written before the close", got, n)
}
