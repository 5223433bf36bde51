package wildfire_test

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wildfire"
	"github.com/imbench/imbench/wire/wildfire/pb"
)

// A client that reads slower than its frames come meets what it meets on
// a real Wildfire: Netty writes with no writability check and no write
// timeout, so what waits for it grows and nothing closes the connection
// for it. The client here, with a receive buffer of a few KiB, asks for its
// feed from the start 40 times without reading: about 20 MB of answers,
// more than the kernel's buffers and the 16 MiB after which the reference
// once dropped such a client. Then it reads every answer.
func TestSlowReaderGetsEverything(t *testing.T) {
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	a, _ := online(t, tg, "a")
	nc, err := (&net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}).Dial("tcp", strings.TrimPrefix(tg.MQTTAddr, "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	b := &client{t: t, nc: nc}
	if ack := b.connect(getToken(t, tg, "b", "c-b", wire.PlatformLinux)); ack.ReturnCode != wire.ConnackAccepted {
		t.Fatalf("b: CONNACK %s", ack.ReturnCode)
	}
	for range 1100 {
		raw := make([]byte, 512)
		rand.Read(raw)
		a.mustSend(wire.ConvPrivate, "b", hex.EncodeToString(raw))
	}
	const pulls = 40
	ids := make([]uint16, pulls)
	for i := range ids {
		ids[i] = b.requestPB(wire.TopicPullMessage, &pb.PullMessageRequest{Id: proto.Int64(0), Type: proto.Int32(wire.PullNormal)})
	}
	time.Sleep(time.Second) // everything waits for b
	for _, id := range ids {
		code, res := b.puback(id)
		var r pb.PullMessageResult
		if code != wire.CodeSuccess || proto.Unmarshal(res, &r) != nil || len(r.GetMessage()) == 0 {
			t.Fatalf("MP %d: code %s, %d messages", id, code, len(r.GetMessage()))
		}
	}
	if b.closedWithin(200 * time.Millisecond) {
		t.Fatal("the server closed the slow reader")
	}
}
